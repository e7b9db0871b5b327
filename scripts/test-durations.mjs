#!/usr/bin/env node
// Writes test/durations.json (seconds per Vitest file) from Vitest's own cache of the last run here
// (node_modules/.vite/vitest/*/results.json). Vitest runs the files longest first by it
// (test/support/longest-first.ts), so the longest files do not start last. Refresh it after a full run:
//   npm run test:unit && node scripts/test-durations.mjs
import fs from "node:fs";
import path from "node:path";

const root = path.resolve(import.meta.dirname, "..");
const cacheRoot = path.join(root, "node_modules", ".vite", "vitest");
const caches = fs.existsSync(cacheRoot)
  ? fs
      .readdirSync(cacheRoot)
      .map((dir) => path.join(cacheRoot, dir, "results.json"))
      .filter((file) => fs.existsSync(file))
  : [];
if (caches.length === 0) {
  console.error("No Vitest results here yet: run `npx vitest run` first.");
  process.exit(1);
}
const durations = {};
for (const file of caches)
  for (const [key, result] of JSON.parse(fs.readFileSync(file, "utf8")).results)
    if (result?.duration) durations[key.replace(/^[^:]*:/, "")] = Math.round(result.duration / 100) / 10;
const sorted = Object.fromEntries(Object.entries(durations).sort(([a], [b]) => (a < b ? -1 : 1)));
fs.writeFileSync(path.join(root, "test", "durations.json"), `${JSON.stringify(sorted, null, 2)}\n`);
console.log(`test/durations.json: ${Object.keys(sorted).length} files`);
