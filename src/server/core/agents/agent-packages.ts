import { createRequire } from "node:module";
import fs from "node:fs";
import path from "node:path";

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

function manifestOf(pkg: string): { dir: string; version: string } | null {
  const require = createRequire(import.meta.url);
  try {
    const manifest = require.resolve(`${pkg}/package.json`);
    const { version } = JSON.parse(fs.readFileSync(manifest, "utf8")) as { version: string };
    return { dir: path.dirname(manifest), version };
  } catch {
    return null;
  }
}

/** The pinned Claude Code's Linux binary for this architecture (npm does not run its postinstall, so the platform package directly). */
export function locateClaudeCode(options: { arch?: string } = {}): ClaudeCodePackage | null {
  const arch = ARCHES[options.arch ?? process.arch];
  const found = arch ? manifestOf(`@anthropic-ai/claude-code-linux-${arch}`) : null;
  if (!found) return null;
  const binary = path.join(found.dir, "claude");
  return fs.existsSync(binary) ? { binary, version: found.version } : null;
}

/** The pinned Gemini CLI's bundle, with the pinned Linux Node.js for this architecture. */
export function locateGeminiCli(options: { arch?: string } = {}): GeminiCliPackage | null {
  const arch = ARCHES[options.arch ?? process.arch];
  const cli = manifestOf("@google/gemini-cli");
  const node = arch ? manifestOf(`node-linux-${arch}`) : null;
  if (!cli || !node) return null;
  const bundleDir = path.join(cli.dir, "bundle");
  const nodeBinary = path.join(node.dir, "bin", "node");
  if (!fs.existsSync(path.join(bundleDir, "gemini.js")) || !fs.existsSync(nodeBinary)) return null;
  return {
    bundleDir,
    packageJson: path.join(cli.dir, "package.json"),
    version: cli.version,
    node: nodeBinary,
    nodeVersion: node.version,
  };
}
