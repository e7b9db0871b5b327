#!/usr/bin/env node
// `npm start`: from a fresh clone, install what is missing, build when sources changed, then run
// invariant-web. Arguments after `--` go to invariant-web (e.g. `npm start -- --port 5000`).
import { spawn } from "node:child_process";
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
try {
  ensureSystemPackages({ "redis-server": "redis-server", dockerd: "docker.io" });
  await ensureDockerEngine();
  ensureNpmDependencies();
  build();
} catch (error) {
  log(error instanceof Error ? error.message : String(error));
  process.exit(1);
}
// the default base image for environments (built offline once; a failure here is not fatal: the
// dashboard explains how to get a base image when an environment is prepared)
try {
  ensureSystemPackages({ debootstrap: "debootstrap" });
  ensureBaseImage();
} catch (error) {
  log(
    `no default base image yet (${error instanceof Error ? error.message : String(error)}); see docs/environments.md`,
  );
}
const child = spawn(process.execPath, [path.join(root, "bin", "invariant-web.mjs"), ...process.argv.slice(2)], {
  stdio: "inherit",
});
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) process.on(signal, () => child.kill(signal));
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
