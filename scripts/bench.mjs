#!/usr/bin/env node
// `npm run bench`: builds when needed, then runs every bench/*.bench.mjs in turn; results go to bench/results/.
import { spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import path from "node:path";
import { build, ensureDockerEngine, ensureNpmDependencies, ensureSystemPackages } from "./system-setup.mjs";

const root = path.resolve(import.meta.dirname, "..");
ensureSystemPackages({ "redis-server": "redis-server", dockerd: "docker.io" });
await ensureDockerEngine();
ensureNpmDependencies();
build();
const only = process.argv[2];
for (const file of readdirSync(path.join(root, "bench"))
  .filter((f) => f.endsWith(".bench.mjs") && (!only || f.includes(only)))
  .sort()) {
  console.log(`\n# ${file}`);
  const result = spawnSync(process.execPath, [path.join(root, "bench", file)], { cwd: root, stdio: "inherit" });
  if (result.status !== 0) process.exit(result.status ?? 1);
}
