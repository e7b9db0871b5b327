import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { packageRoot } from "../../../lib/package-info";
import { locateCodexBinary, type CodexBinary } from "./codex-binary";
import { locateClaudeCode, locateGeminiCli, type ClaudeCodePackage, type GeminiCliPackage } from "./agent-packages";
import type { AgentInstall, AgentInstalls } from "./harness";

/** What containers mount from the worker's own package, as paths inside the data dir. */
export interface PackageFiles {
  /** The gateway bridges (gateway-bridge.pl, gateway-bridge.cjs), mounted read-only into agent containers. */
  bridgeDir: string;
  /** The Codex binary, mounted read-only into base environment builds; null when the package has none. */
  codex: CodexBinary | null;
  /** The folder holding `claude`, mounted read-only into Claude Code runs; null when the package has none. */
  claudeCode: AgentInstall | null;
  /** The folder holding `node`, `package.json` and `bundle/`, mounted read-only into Gemini CLI runs. */
  geminiCli: AgentInstall | null;
}

/** What a worker's agent runs know of each CLI: its version, and the folder staged for it (Codex is in the image). */
export function agentInstalls(files: PackageFiles): AgentInstalls {
  return {
    ...(files.codex ? { codex: { version: files.codex.version, hostDir: null } } : {}),
    ...(files.claudeCode ? { "claude-code": files.claudeCode } : {}),
    ...(files.geminiCli ? { "gemini-cli": files.geminiCli } : {}),
  };
}

const BRIDGES = ["gateway-bridge.pl", "gateway-bridge.cjs"];

/** Moves a folder built aside into place; one another worker put there first wins (same content). */
function publishDir(tmp: string, target: string): void {
  try {
    fs.renameSync(tmp, target);
  } catch (error) {
    fs.rmSync(tmp, { recursive: true, force: true });
    if (!fs.existsSync(target)) throw error;
  }
}

/** A hard link where the package and the data dir share a filesystem (no space used), else a copy. */
function linkOrCopy(source: string, target: string, mode = 0o755): void {
  try {
    fs.linkSync(source, target);
  } catch {
    fs.copyFileSync(source, target, fs.constants.COPYFILE_FICLONE);
  }
  // readable (and for programs runnable) by whichever user a container runs as
  fs.chmodSync(target, mode);
}

/** Links (or copies) a folder's files into `target`, keeping their tree; readable by everyone. */
function linkTree(source: string, target: string): void {
  fs.mkdirSync(target, { recursive: true });
  for (const entry of fs.readdirSync(source, { withFileTypes: true })) {
    const from = path.join(source, entry.name);
    const to = path.join(target, entry.name);
    if (entry.isDirectory()) linkTree(from, to);
    else if (entry.isFile()) linkOrCopy(from, to, fs.statSync(from).mode & 0o111 ? 0o755 : 0o644);
  }
}

/** Builds a staged folder aside and moves it into place, unless a complete one is there already. */
function stageOnce(target: string, fill: (tmp: string) => void): void {
  if (fs.existsSync(target)) return;
  const tmp = `${target}.tmp-${randomBytes(4).toString("hex")}`;
  fs.mkdirSync(tmp, { recursive: true });
  fill(tmp);
  publishDir(tmp, target);
}

function stageClaudeCode(root: string, claude: ClaudeCodePackage): AgentInstall {
  const size = fs.statSync(claude.binary).size;
  const target = path.join(root, `claude-code-${claude.version}-${size}`);
  stageOnce(target, (tmp) => linkOrCopy(claude.binary, path.join(tmp, "claude")));
  return { version: claude.version, hostDir: target };
}

function stageGeminiCli(root: string, gemini: GeminiCliPackage): AgentInstall {
  const target = path.join(root, `gemini-cli-${gemini.version}-node-${gemini.nodeVersion}`);
  stageOnce(target, (tmp) => {
    linkOrCopy(gemini.node, path.join(tmp, "node"));
    linkOrCopy(gemini.packageJson, path.join(tmp, "package.json"), 0o644);
    linkTree(gemini.bundleDir, path.join(tmp, "bundle"));
  });
  return { version: gemini.version, hostDir: target };
}

function stageBridges(root: string, assetsDir: string): string {
  const hash = createHash("sha256");
  for (const name of BRIDGES)
    hash
      .update(name)
      .update("\0")
      .update(fs.readFileSync(path.join(assetsDir, name)));
  const target = path.join(root, `bridge-${hash.digest("hex").slice(0, 16)}`);
  if (fs.existsSync(target)) return target;
  const tmp = `${target}.tmp-${randomBytes(4).toString("hex")}`;
  fs.mkdirSync(tmp, { recursive: true });
  for (const name of BRIDGES) fs.copyFileSync(path.join(assetsDir, name), path.join(tmp, name));
  publishDir(tmp, target);
  return target;
}

function stageCodex(root: string, codex: CodexBinary): CodexBinary {
  const size = fs.statSync(codex.path).size;
  const target = path.join(root, `codex-${codex.version}-${size}`);
  const binary = path.join(target, "codex");
  if (fs.statSync(binary, { throwIfNoEntry: false })?.size !== size) {
    const tmp = `${target}.tmp-${randomBytes(4).toString("hex")}`;
    fs.mkdirSync(tmp, { recursive: true });
    linkOrCopy(codex.path, path.join(tmp, "codex"));
    fs.rmSync(target, { recursive: true, force: true });
    publishDir(tmp, target);
  }
  return { ...codex, path: binary };
}

/**
 * Stages what containers mount from the worker's package into `<data dir>/caches/package-files/`.
 * A mount's source is resolved by the Docker engine on its own host, so a worker that runs in a
 * container (Compose) can hand the engine only paths both see: the data dir, bind-mounted at the
 * same path on the host (docs/compose.md); the web process's terminal sessions mount the bridges too. Its own package lives in its image, out of the engine's
 * sight. Staged once per content (folders named by hash or version), so workers of different
 * versions can share a data dir; the agent CLIs (Codex's binary, Claude Code's, Gemini CLI's bundle and
 * its Node.js) are hard-linked where they can be (no space used).
 */
export function stagePackageFiles(options: {
  dataDir: string;
  /** The package whose files are staged (default: this one) and its agent CLIs (default: its own; null: none). */
  packageRoot?: string;
  codex?: CodexBinary | null;
  claudeCode?: ClaudeCodePackage | null;
  geminiCli?: GeminiCliPackage | null;
}): PackageFiles {
  const root = path.join(options.dataDir, "caches", "package-files");
  fs.mkdirSync(root, { recursive: true });
  const codex = options.codex === undefined ? locateCodexBinary() : options.codex;
  const claude = options.claudeCode === undefined ? locateClaudeCode() : options.claudeCode;
  const gemini = options.geminiCli === undefined ? locateGeminiCli() : options.geminiCli;
  return {
    bridgeDir: stageBridges(root, path.join(options.packageRoot ?? packageRoot(), "assets")),
    codex: codex ? stageCodex(root, codex) : null,
    claudeCode: claude ? stageClaudeCode(root, claude) : null,
    geminiCli: gemini ? stageGeminiCli(root, gemini) : null,
  };
}
