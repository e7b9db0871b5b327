#!/usr/bin/env node
// `npm pack` / `npm publish` run this first (package.json "prepack"): from a fresh clone, install the
// dependencies the build needs, build (skipped when dist/ and .next/ are up to date), and copy
// better-sqlite3's native addon into dist/native/ so an install that skips dependencies' install
// scripts (npm 11's default for packages nobody approved, e.g. `npx invariant-web`) still has one.
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import path from "node:path";
import { build, ensureNpmDependencies, log } from "./system-setup.mjs";

const root = path.resolve(import.meta.dirname, "..");
ensureNpmDependencies();
build();
const addon = path.join(root, "node_modules", "better-sqlite3", "build", "Release", "better_sqlite3.node");
if (!existsSync(addon)) {
  log(`prepack: ${addon} is missing; run npm rebuild better-sqlite3 first`);
  process.exit(1);
}
const nativeDir = path.join(root, "dist", "native");
mkdirSync(nativeDir, { recursive: true });
// only this platform's addon: a stale one from another Node.js version would be shipped for nothing
for (const entry of readdirSync(nativeDir)) rmSync(path.join(nativeDir, entry));
const name = `better_sqlite3-${process.platform}-${process.arch}-abi${process.versions.modules}.node`;
copyFileSync(addon, path.join(nativeDir, name));
log(`prepack: built; shipping dist/native/${name}`);
