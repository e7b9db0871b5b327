#!/usr/bin/env node
// The `invariant-web` command. The CLI is bundled to dist/ by `npm run build` (done by `npm start`).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const cli = new URL("../dist/cli.mjs", import.meta.url);
if (!existsSync(fileURLToPath(cli))) {
  process.stderr.write("invariant-web is not built yet: run `npm start` (or `npm run build`) in its directory.\n");
  process.exit(1);
}
await import(cli.href);
