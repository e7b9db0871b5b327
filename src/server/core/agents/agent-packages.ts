import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";
import { agentNodeRuntime, defaultNodeCacheDir } from "./agent-node-runtime";

/**
 * The agent CLIs besides Codex as the pinned dependencies ship them: Claude Code's native Linux binary
 * and Gemini CLI's bundle with a Node.js of its own (containers never use the project's Node). Both are
 * mounted read-only into agent containers at run time (package-files.ts stages them), never built into
 * an environment image. Linux builds only: a container runs Linux whatever the host.
 */
export interface ClaudeCodePackage {
  /** The `claude` ELF binary (glibc). */
  binary: string;
  version: string;
}

export interface GeminiCliPackage {
  /** The bundle folder (gemini.js and its chunks) and the package.json beside it (the CLI reads its version there). */
  bundleDir: string;
  packageJson: string;
  version: string;
  /** The Node.js binary it runs on in containers, and that Node's version. */
  node: string;
  nodeVersion: string;
}

const ARCHES: Record<string, string> = { x64: "x64", arm64: "arm64" };

/** A package's folder and version, resolved from this package (or from `from`, a folder inside another package). */
function manifestOf(pkg: string, from: string = import.meta.url): { dir: string; version: string } | null {
  try {
    const manifest = createRequire(from).resolve(`${pkg}/package.json`);
    const { version } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string };
    return { dir: path.dirname(manifest), version };
  } catch {
    return null;
  }
}

/**
 * The pinned Claude Code's Linux binary for this architecture (npm does not run its postinstall, so the
 * platform package directly). `from`: a file whose package resolves them (default: this module).
 */
export function locateClaudeCode(options: { arch?: string; from?: string } = {}): ClaudeCodePackage | null {
  const arch = ARCHES[options.arch ?? process.arch];
  if (!arch) return null;
  const platform = `@anthropic-ai/claude-code-linux-${arch}`;
  // hoisted beside us, or nested under @anthropic-ai/claude-code (its optional dependency)
  const wrapper = manifestOf("@anthropic-ai/claude-code", options.from);
  const found =
    manifestOf(platform, options.from) ??
    (wrapper ? manifestOf(platform, path.join(wrapper.dir, "package.json")) : null);
  if (!found) return null;
  const binary = path.join(found.dir, "claude");
  return fs.existsSync(binary) ? { binary, version: found.version } : null;
}

/**
 * The pinned Gemini CLI's bundle, with the Linux Node.js for this architecture it runs on in containers
 * (agent-node-runtime.ts: fetched once into `nodeCacheDir`).
 */
export function locateGeminiCli(options: { arch?: string; nodeCacheDir?: string } = {}): GeminiCliPackage | null {
  const arch = ARCHES[options.arch ?? process.arch];
  const bundle = locateGeminiBundle();
  if (!bundle || !arch) return null;
  const node = agentNodeRuntime({ cacheDir: options.nodeCacheDir ?? defaultNodeCacheDir(), arch });
  if (!node) return null;
  return { ...bundle, node: node.binary, nodeVersion: node.version };
}

/** The pinned Gemini CLI's bundle alone (no Node.js fetched: the doctor's look). `from` as for locateClaudeCode. */
export function locateGeminiBundle(
  options: { from?: string } = {},
): Omit<GeminiCliPackage, "node" | "nodeVersion"> | null {
  const cli = manifestOf("@google/gemini-cli", options.from);
  if (!cli) return null;
  const bundleDir = path.join(cli.dir, "bundle");
  if (!fs.existsSync(path.join(bundleDir, "gemini.js"))) return null;
  return { bundleDir, packageJson: path.join(cli.dir, "package.json"), version: cli.version };
}

/** The Linux architecture name agent CLIs are built for on this host (null: none is). */
export function agentArch(arch: string = process.arch): string | null {
  return ARCHES[arch] ?? null;
}
