// Sets up what invariant-web needs from the system, for `npm start` and `npm test` on a fresh machine:
// Debian packages (as root, via apt-get, only when missing), a running Docker engine, npm dependencies.
import { spawn, spawnSync } from "node:child_process";
import { existsSync, openSync, statSync } from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const isRoot = process.getuid?.() === 0;

export function log(message) {
  process.stderr.write(`[setup] ${message}\n`);
}

function has(command) {
  return spawnSync("sh", ["-c", `command -v ${command}`], { stdio: "ignore" }).status === 0;
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", cwd: root, ...options });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

/** Installs Debian packages whose command is missing. `wanted` maps a command to its package. */
export function ensureSystemPackages(wanted) {
  const missing = Object.entries(wanted)
    .filter(([command]) => !has(command))
    .map(([, pkg]) => pkg);
  if (missing.length === 0) return;
  if (!isRoot || !has("apt-get")) {
    throw new Error(
      `Missing system packages: ${missing.join(", ")}. Install them (e.g. sudo apt-get install -y ${missing.join(" ")}) and run again.`,
    );
  }
  log(`installing ${missing.join(", ")} with apt-get`);
  const env = { ...process.env, DEBIAN_FRONTEND: "noninteractive" };
  run("apt-get", ["update", "-qq"], { env });
  run("apt-get", ["install", "-y", "-qq", "--no-install-recommends", ...missing], { env });
}

function dockerReachable() {
  return (
    spawnSync("docker", ["version", "--format", "{{.Server.Version}}"], { stdio: "ignore", timeout: 10_000 }).status ===
    0
  );
}

/** Starts dockerd (as root) when no Docker engine answers; waits until it does. */
export async function ensureDockerEngine() {
  if (dockerReachable()) return;
  if (!isRoot || !has("dockerd")) {
    throw new Error(
      "The Docker engine is not running. Start it (sudo systemctl start docker, or sudo dockerd &) and run again.",
    );
  }
  log("starting dockerd (log: /var/log/invariant-dockerd.log)");
  const out = openSync("/var/log/invariant-dockerd.log", "a");
  const child = spawn("dockerd", [], { detached: true, stdio: ["ignore", out, out] });
  child.unref();
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (dockerReachable()) return;
  }
  throw new Error("dockerd did not become ready within 30 s; see /var/log/invariant-dockerd.log.");
}

/** npm ci when node_modules is missing or older than the lockfile. */
export function ensureNpmDependencies() {
  const marker = path.join(root, "node_modules", ".package-lock.json");
  const lock = path.join(root, "package-lock.json");
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  log("installing npm dependencies (npm ci)");
  run("npm", ["ci", "--no-audit", "--no-fund"], { env: { ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" } });
}

export function build() {
  run(process.execPath, [path.join(root, "scripts", "build.mjs")]);
}

/** The default base image, built offline from Debian packages when the engine does not have it. */
export function ensureBaseImage() {
  run(process.execPath, [path.join(root, "scripts", "base-image.mjs")]);
}
