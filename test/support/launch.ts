import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

/** The checkout this module is in: its folder holds bin/invariant-web.mjs (a bench imports it bundled, from node_modules/.cache). */
function checkoutRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, "bin", "invariant-web.mjs"))) return dir;
    if (path.dirname(dir) === dir) return path.resolve(from, "..", "..");
  }
}
export const ROOT = checkoutRoot(import.meta.dirname);
export const BIN = path.join(ROOT, "bin", "invariant-web.mjs");

export interface Launched {
  child: ChildProcess;
  url: string;
  base: string;
  token: string;
  stderr: () => string;
  stdoutLines: () => string[];
  /** pids of the launcher's direct children (worker, private Redis) */
  childPids: () => number[];
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
  /** Resolves with the exit code (null when a signal ended it). */
  exited: Promise<number | null>;
}

/** Environment for a launched invariant-web: never inherit a Redis URL or a display from the test runner. */
export function cleanEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.REDIS_URL;
  delete env.DISPLAY;
  delete env.WAYLAND_DISPLAY;
  delete env.INVARIANT_DATA_DIR;
  return env;
}

export function childrenOf(pid: number): number[] {
  return fs
    .readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
        const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
        return ppid === pid ? [Number(entry)] : [];
      } catch {
        return [];
      }
    });
}

/**
 * Sends a signal to one process, or with `group` to its process group. Refuses anything but a real pid:
 * kill(-1) would signal every process of the user, kill(0) the test runner's own group.
 */
export function signalProcess(
  pid: number | undefined,
  signal: NodeJS.Signals,
  options: { group?: boolean } = {},
): void {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 1) throw new Error(`no process to signal (pid ${pid})`);
  process.kill(options.group ? -pid : pid, signal);
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    const state = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.[0];
    return state !== "Z";
  } catch {
    return false;
  }
}

/** Starts the built `invariant-web` and resolves once it prints its URL. */
export async function launch(options: {
  dataDir: string;
  args?: string[];
  /** Let it open a browser (default: --no-open). */
  open?: boolean;
  /** Added to the clean environment. */
  env?: Record<string, string>;
  /** In a process group of its own (as a terminal's job is), so a test can signal the whole group. */
  detached?: boolean;
}): Promise<Launched> {
  if (!fs.existsSync(path.join(ROOT, "dist", "cli.mjs"))) throw new Error("Build first: npm run build");
  const child = spawn(
    process.execPath,
    [
      BIN,
      "--data-dir",
      options.dataDir,
      "--port",
      "0",
      ...(options.open ? [] : ["--no-open"]),
      ...(options.args ?? []),
    ],
    {
      cwd: ROOT,
      env: { ...cleanEnv(), ...options.env },
      stdio: ["ignore", "pipe", "pipe"],
      detached: options.detached ?? false,
    },
  );
  let stdout = "";
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`invariant-web did not print its URL within 60 s. stderr:\n${stderr}`)),
      60_000,
    );
    child.stdout?.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /is running at (\S+)/.exec(stdout);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`invariant-web exited with ${String(code)} before printing its URL. stderr:\n${stderr}`));
    });
  });
  const parsed = new URL(url);
  return {
    child,
    url,
    base: parsed.origin,
    token: parsed.searchParams.get("token") ?? "",
    stderr: () => stderr,
    stdoutLines: () => stdout.split("\n").filter(Boolean),
    childPids: () => childrenOf(child.pid ?? -1),
    exited,
    async stop(signal = "SIGTERM") {
      if (child.exitCode !== null) return child.exitCode;
      child.kill(signal);
      return exited;
    },
  };
}
