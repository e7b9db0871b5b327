#!/usr/bin/env node
// Builds everything `invariant-web` runs: the Prisma client, the CLI/server/worker bundles (esbuild)
// and the Next.js pages. `--server-only` skips the Next build. Skips work that is already up to date.
import { spawnSync } from "node:child_process";
import { existsSync, statSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { build } from "esbuild";

const root = path.resolve(import.meta.dirname, "..");
const serverOnly = process.argv.includes("--server-only");
const force = process.argv.includes("--force");

function run(command, args) {
  const result = spawnSync(command, args, {
    cwd: root,
    stdio: "inherit",
    env: { ...process.env, NEXT_TELEMETRY_DISABLED: "1" },
  });
  if (result.status !== 0) process.exit(result.status ?? 1);
}

function newestMtime(paths) {
  let newest = 0;
  const visit = (p) => {
    if (!existsSync(p)) return;
    const stat = statSync(p);
    if (stat.isDirectory()) {
      for (const entry of readdirSync(p))
        if (entry !== "generated" && entry !== "node_modules") visit(path.join(p, entry));
    } else newest = Math.max(newest, stat.mtimeMs);
  };
  paths.forEach((p) => visit(path.join(root, p)));
  return newest;
}

const inputs = newestMtime([
  "src",
  "worker",
  "prisma",
  "public",
  "package.json",
  "next.config.ts",
  "postcss.config.mjs",
  "package-lock.json",
]);
const stamp = (file) => (existsSync(path.join(root, file)) ? statSync(path.join(root, file)).mtimeMs : 0);

if (
  force ||
  stamp("src/generated/prisma/client.ts") < stamp("prisma/schema.prisma") ||
  !existsSync(path.join(root, "src/generated/prisma/client.ts"))
) {
  run(process.execPath, ["scripts/prisma.mjs", "generate"]);
}

if (force || stamp("dist/cli.mjs") < inputs) {
  const result = await build({
    entryPoints: { cli: "src/cli/main.ts" },
    outdir: "dist",
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    sourcemap: true,
    logLevel: "warning",
    absWorkingDir: root,
    metafile: true,
  });
  // esbuild leaves the chunks of earlier builds behind (their names carry content hashes): drop them,
  // so dist/ (and the npm package) holds only this build
  const outputs = new Set(Object.keys(result.metafile.outputs).map((file) => path.resolve(root, file)));
  for (const entry of readdirSync(path.join(root, "dist"), { withFileTypes: true })) {
    const file = path.join(root, "dist", entry.name);
    if (entry.isFile() && !outputs.has(file)) rmSync(file);
  }
  console.log("built dist/ (CLI, web server, worker)");
}

if (!serverOnly && (force || stamp(".next/BUILD_ID") < inputs)) {
  run(process.execPath, [path.join(root, "node_modules", "next", "dist", "bin", "next"), "build"]);
}
