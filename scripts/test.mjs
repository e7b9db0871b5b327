#!/usr/bin/env node
// `npm test`: from a fresh clone, set up everything the tests use (Debian packages as root, the
// Docker engine, npm dependencies, a build), then run lint, typecheck, unit + integration and e2e.
import { spawnSync } from "node:child_process";
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

try {
  ensureSystemPackages({
    "redis-server": "redis-server",
    chromium: "chromium",
    dockerd: "docker.io",
    // test/compose.test.ts brings docker-compose.yml up with Debian's Compose
    "docker-compose": "docker-compose",
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

step("format check", bin("prettier"), ["--check", "--log-level=warn", "."]);
step("lint", bin("eslint"), ["--max-warnings=0", "."]);
step("typecheck", bin("tsc"), ["--noEmit"]);
step("unit and integration tests", bin("vitest"), ["run"]);
step("e2e tests", bin("playwright"), ["test"], { PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: "1" });
log(`all passed in ${((Date.now() - started) / 1000).toFixed(0)}s (${steps.join(", ")})`);
