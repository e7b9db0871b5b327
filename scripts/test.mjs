#!/usr/bin/env node
// `npm test`: from a fresh clone, set up everything the tests use (Debian packages as root, the
// Docker engine, npm dependencies, a build), then run lint, typecheck, unit + integration and e2e.
import { spawn, spawnSync } from "node:child_process";
import path from "node:path";
import {
  build,
  ensureBaseImage,
  ensureDockerEngine,
  ensureNpmDependencies,
  ensureSystemPackages,
  log,
} from "./system-setup.mjs";

const root = path.resolve(import.meta.dirname, "..");
const bin = (name) => path.join(root, "node_modules", ".bin", name);
const started = Date.now();
const steps = [];

function step(name, command, args, env = {}) {
  const begin = Date.now();
  log(`${name}…`);
  const result = spawnSync(command, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
  const seconds = ((Date.now() - begin) / 1000).toFixed(1);
  steps.push(`${name} ${seconds}s`);
  if (result.status !== 0) {
    log(`${name} failed after ${seconds}s`);
    process.exit(result.status ?? 1);
  }
}

/**
 * Steps that only read the tree and share nothing (the format check, ESLint, tsc) run side by side: ESLint is
 * single-threaded and the longest, so the other two fit beside it on a 2-core machine. Each one's output is
 * held and printed when it ends, so the log stays readable; each runs to its end, and any failure fails npm test.
 */
async function sideBySide(list) {
  const begin = Date.now();
  log(`${list.map((s) => s.name).join(", ")} side by side…`);
  const results = await Promise.all(
    list.map(
      ({ name, command, args }) =>
        new Promise((resolve) => {
          const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"], env: process.env });
          const output = [];
          child.stdout.on("data", (chunk) => output.push(chunk));
          child.stderr.on("data", (chunk) => output.push(chunk));
          child.once("error", (error) => output.push(Buffer.from(`${error.message}\n`)));
          child.once("close", (code) => {
            const seconds = ((Date.now() - begin) / 1000).toFixed(1);
            process.stdout.write(Buffer.concat(output));
            steps.push(`${name} ${seconds}s`);
            log(code === 0 ? `${name} passed after ${seconds}s` : `${name} failed after ${seconds}s`);
            resolve(code ?? 1);
          });
        }),
    ),
  );
  const failed = results.find((status) => status !== 0);
  if (failed !== undefined) process.exit(failed);
}

try {
  ensureSystemPackages({
    "redis-server": "redis-server",
    chromium: "chromium",
    dockerd: "docker.io",
    // test/compose.test.ts brings docker-compose.yml up with Debian's Compose
    "docker-compose": "docker-compose",
    // test/remote-registry.test.ts moves images through a local OCI registry (Debian's, offline)
    "docker-registry": "docker-registry",
    debootstrap: "debootstrap",
    git: "git",
    openssl: "openssl",
  });
  await ensureDockerEngine();
  ensureNpmDependencies();
  build();
  ensureBaseImage();
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
}

await sideBySide([
  { name: "format check", command: bin("prettier"), args: ["--check", "--log-level=warn", "."] },
  { name: "lint", command: bin("eslint"), args: ["--max-warnings=0", "."] },
  { name: "typecheck", command: bin("tsc"), args: ["--noEmit"] },
]);
step("unit and integration tests", bin("vitest"), ["run"]);
step("e2e tests", bin("playwright"), ["test"], { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" });
log(`all passed in ${((Date.now() - started) / 1000).toFixed(0)}s (${steps.join(", ")})`);
