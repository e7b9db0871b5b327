import fs from "node:fs";
import path from "node:path";
import { claudeCodeHarness, claudeCodeHarnessSchema, CLAUDE_BINARY } from "../../core/agents/harnesses/claude-code";
import { codexGatewayFlags } from "../../core/agents/harnesses/codex";
import {
  GEMINI_ENTRY,
  GEMINI_NODE,
  geminiCliHarness,
  geminiCliHarnessSchema,
} from "../../core/agents/harnesses/gemini-cli";
import {
  CONTAINER_PATHS,
  shellQuote,
  tomlString,
  type AgentInstall,
  type AgentInstalls,
} from "../../core/agents/harnesses/harness-module";
import type { Mount } from "../../core/runtime/container-spec";
import { wireModelName } from "../../../shared/model-source";
import { HARNESS_INFO } from "../../../shared/harness-kinds";
import type { ReasoningEffort } from "../../../shared/vocabulary";
import type { AgentSessionKind } from "../../../shared/session-schemas";
import { SESSION_TOKEN_FILE } from "./session-token";

/**
 * Each agent's TUI in a session container: its command line (a new conversation, or the one the control
 * folder's resume file names), its environment, its home and files mounted, and what its home must hold
 * so that it starts without asking anything (no onboarding, folder trust or API-key prompt). The
 * gateway token reaches every CLI from SESSION_TOKEN_FILE only, never from the container's environment.
 */
export interface AgentTuiOptions {
  model: string;
  reasoningEffort: string | null;
  hostedTools: boolean;
}

/** The Codex TUI's flags: the gateway's (a per-session token), and /workspace trusted. */
export function codexTuiFlags(options: AgentTuiOptions) {
  return [
    ...codexGatewayFlags(options),
    // a private copy is a git repository, for which Codex would first ask whether to trust the folder
    "-c",
    `projects={ ${tomlString(CONTAINER_PATHS.workspace)} = { trust_level = "trusted" } }`,
  ];
}

/**
 * Claude Code's settings for a session, given on its command line (the agent home is writable by the
 * agent, the command line is not): the key comes from the token file through apiKeyHelper (a key in
 * ANTHROPIC_API_KEY would first ask "use this API key?", and sit in the process's environment), and
 * the bypass-permissions mode starts without its confirmation (the container is the sandbox, as for Codex).
 */
const CLAUDE_SESSION_SETTINGS = JSON.stringify({
  apiKeyHelper: `cat ${SESSION_TOKEN_FILE}`,
  skipDangerousModePermissionPrompt: true,
});

function claudeFlags(options: AgentTuiOptions): string[] {
  const effort = options.reasoningEffort as ReasoningEffort | null;
  return [
    "--model",
    wireModelName(options.model),
    "--dangerously-skip-permissions",
    "--settings",
    CLAUDE_SESSION_SETTINGS,
    ...(effort && HARNESS_INFO["claude-code"].efforts.includes(effort) ? ["--effort", effort] : []),
  ];
}

/** The shell lines that exec the agent's TUI: `resume` when `resumeFile` names a conversation, else a new one. */
export function agentTuiLines(kind: AgentSessionKind, options: AgentTuiOptions & { resumeFile: string }): string[] {
  const resumeId = `"$(cat ${options.resumeFile})"`;
  const either = (program: string, resume: string) => [
    `if [ -s ${options.resumeFile} ]; then exec ${program} ${resume}; fi`,
    `exec ${program}`,
  ];
  if (kind === "codex")
    return either(`codex ${codexTuiFlags(options).map(shellQuote).join(" ")}`, `resume ${resumeId}`);
  // a trial's result image keeps its run's environment, its key variables too: none of them may reach the
  // CLI (Claude Code would ask whether to use that key; it was the trial's token, not this session's)
  if (kind === "claude-code")
    return [
      "unset ANTHROPIC_API_KEY ANTHROPIC_AUTH_TOKEN CLAUDE_CODE_OAUTH_TOKEN",
      ...either([CLAUDE_BINARY, ...claudeFlags(options)].map(shellQuote).join(" "), `--resume ${resumeId}`),
    ];
  const gemini = [GEMINI_NODE, GEMINI_ENTRY, "-m", wireModelName(options.model), "--yolo"].map(shellQuote).join(" ");
  // Gemini CLI reads its key only from the environment: the script's own, taken from the token file
  return [
    "unset GOOGLE_API_KEY",
    `GEMINI_API_KEY="$GW_TOKEN"; export GEMINI_API_KEY`,
    ...either(gemini, `--resume ${resumeId}`),
  ];
}

/** The container environment an agent's TUI reads (Codex's home; the other CLIs' quiet flags, base URL, home), no key. */
export function agentTuiEnv(kind: AgentSessionKind, options: { model: string; home: string }): Record<string, string> {
  if (kind === "codex") return { CODEX_HOME: CONTAINER_PATHS.codexHome };
  const run = { prompt: "", resumeThreadId: null, hostedTools: false, token: "" };
  const env =
    kind === "claude-code"
      ? claudeCodeHarness.env({ ...run, harness: claudeCodeHarnessSchema.parse({ kind, model: options.model }) })
      : geminiCliHarness.env({ ...run, harness: geminiCliHarnessSchema.parse({ kind, model: options.model }) });
  // the key variables stay out: the token is read from its file once the container runs
  const { ANTHROPIC_API_KEY: _anthropic, GEMINI_API_KEY: _gemini, ...rest } = env;
  return { ...rest, HOME: options.home };
}

/** What the session mounts for the agent: its home (read-write), and the CLI staged from the package (read-only). */
export function agentTuiMounts(
  kind: AgentSessionKind,
  options: { homePath: string; install: AgentInstall | null },
): Mount[] {
  if (kind === "codex")
    return [{ hostPath: options.homePath, containerPath: CONTAINER_PATHS.codexHome, readOnly: false }];
  return (kind === "claude-code" ? claudeCodeHarness : geminiCliHarness).mounts(options);
}

/** The staged CLI a session of `kind` mounts; throws with how to get it when the package has none (Codex is in the image). */
export function agentInstallFor(kind: AgentSessionKind, installs: AgentInstalls): AgentInstall | null {
  if (kind === "codex") return null;
  const install = installs[kind];
  if (install?.hostDir) return install;
  const harness = kind === "claude-code" ? claudeCodeHarness : geminiCliHarness;
  throw new Error(
    `${HARNESS_INFO[kind].label} is not installed with the dashboard. ${harness.install?.hint ?? ""}`.trim(),
  );
}

function readJson(file: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(file, "utf8"));
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/**
 * What the agent's home must say before each start of its TUI: Claude Code's first-run screens done
 * (onboarding, theme) and /workspace trusted (else it asks, and would exit on "No"); Gemini CLI's
 * settings (the API key as its auth, no folder-trust prompt, no telemetry or update checks).
 */
export function prepareAgentHome(kind: AgentSessionKind, homePath: string, model: string): void {
  if (kind === "gemini-cli") geminiCliHarness.prepareHome?.(homePath, geminiCliHarnessSchema.parse({ kind, model }));
  if (kind !== "claude-code") return;
  const file = path.join(homePath, ".claude.json");
  const config = readJson(file);
  const projects = (config.projects && typeof config.projects === "object" ? config.projects : {}) as Record<
    string,
    Record<string, unknown>
  >;
  const workspace = { ...projects[CONTAINER_PATHS.workspace], hasTrustDialogAccepted: true };
  const next = {
    ...config,
    hasCompletedOnboarding: true,
    theme: config.theme ?? "dark",
    projects: { ...projects, [CONTAINER_PATHS.workspace]: workspace },
  };
  fs.writeFileSync(file, `${JSON.stringify(next, null, 2)}\n`, { mode: 0o600 });
}
