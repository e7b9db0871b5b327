import {
  agentNodeSpec,
  AGENT_NODE_VERSION,
  cachedAgentNodeRuntime,
  defaultNodeCacheDir,
} from "../agents/agent-node-runtime";
import { agentArch, locateClaudeCode, locateGeminiBundle } from "../agents/agent-packages";
import type { DoctorCheck } from "./doctor-check";

/**
 * Whether the agent CLIs besides Codex can run here: the pinned Claude Code binary, and the pinned
 * Gemini CLI bundle with the Node.js it runs on in containers. Not required (a study of Codex runs
 * without them): missing is a warning whose fix says what to do. The doctor only looks: it never
 * fetches Gemini's Node.js (a worker does, when it starts).
 */
export interface AgentClisCheckOptions {
  /** A file whose package resolves the CLIs (tests; default: this package). */
  from?: string;
  /** Where Gemini's Node.js is cached (default: the user's, agent-node-runtime.ts). */
  nodeCacheDir?: string;
  /** Node's name for the host's architecture (default process.arch). */
  arch?: string;
}

const REINSTALL = "Reinstall invariant-web's dependencies (npm install in its folder, or reinstall the package)";

function unsupportedArch(id: DoctorCheck["id"], title: string, arch: string): DoctorCheck {
  return {
    id,
    title,
    status: "warn",
    required: false,
    detail: `no Linux build for this host's architecture (${arch}); runs of it are refused`,
    fix: "Run workers on an x64 or arm64 host to offer this agent.",
  };
}

export function checkClaudeCode(options: AgentClisCheckOptions = {}): DoctorCheck {
  const title = "Claude Code CLI";
  const arch = options.arch ?? process.arch;
  if (!agentArch(arch)) return unsupportedArch("claude-code", title, arch);
  const found = locateClaudeCode({ arch, ...(options.from ? { from: options.from } : {}) });
  return found
    ? {
        id: "claude-code",
        title,
        status: "ok",
        required: false,
        detail: `Claude Code ${found.version} (${found.binary})`,
        fix: null,
      }
    : {
        id: "claude-code",
        title,
        status: "warn",
        required: false,
        detail: `the Linux binary of @anthropic-ai/claude-code (@anthropic-ai/claude-code-linux-${agentArch(arch)}) is not installed; Claude Code runs are refused`,
        fix: `${REINSTALL} so the pinned @anthropic-ai/claude-code and its platform package are present; npm must not skip optional dependencies (no --omit=optional, --no-optional).`,
      };
}

export function checkGeminiCli(options: AgentClisCheckOptions = {}): DoctorCheck {
  const title = "Gemini CLI";
  const arch = options.arch ?? process.arch;
  const linuxArch = agentArch(arch);
  if (!linuxArch) return unsupportedArch("gemini-cli", title, arch);
  const bundle = locateGeminiBundle(options.from ? { from: options.from } : {});
  if (!bundle)
    return {
      id: "gemini-cli",
      title,
      status: "warn",
      required: false,
      detail: "the bundle of @google/gemini-cli (bundle/gemini.js) is not installed; Gemini CLI runs are refused",
      fix: `${REINSTALL} so the pinned @google/gemini-cli is present.`,
    };
  const cacheDir = options.nodeCacheDir ?? defaultNodeCacheDir();
  const node = cachedAgentNodeRuntime({ cacheDir, arch: linuxArch });
  if (!node)
    return {
      id: "gemini-cli",
      title,
      status: "warn",
      required: false,
      detail: `Gemini CLI ${bundle.version} is installed, but the Node.js ${AGENT_NODE_VERSION} it runs on in containers is not in ${cacheDir} yet; a worker fetches it when it starts, and refuses Gemini CLI runs if it cannot`,
      fix: `Check that \`npm pack ${agentNodeSpec(linuxArch)}\` works on this host (npm needs its registry, a proxy set in its config, or the package in its cache), then restart the worker.`,
    };
  return {
    id: "gemini-cli",
    title,
    status: "ok",
    required: false,
    detail: `Gemini CLI ${bundle.version} on Node.js ${node.version} (${bundle.bundleDir}, ${node.binary})`,
    fix: null,
  };
}
