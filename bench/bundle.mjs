// Bundles TypeScript modules of the app for a benchmark (esbuild, like scripts/build.mjs) and imports them.
import path from "node:path";
import { build } from "esbuild";
import { ROOT } from "./lib.mjs";

const CACHE = path.join(ROOT, "node_modules", ".cache", "invariant-bench");
const OPTIONS = {
  bundle: true,
  format: "esm",
  platform: "node",
  target: "node20",
  packages: "external",
  logLevel: "warning",
  absWorkingDir: ROOT,
};

/** One module of the app, e.g. importSource("src/server/core/agents/agent-run.ts"). */
export async function importSource(relativePath) {
  const outfile = path.join(CACHE, `${path.basename(relativePath, ".ts")}.mjs`);
  await build({ ...OPTIONS, entryPoints: [path.join(ROOT, relativePath)], outfile });
  return import(outfile);
}

/** Several modules bundled together (so they share one copy of their dependencies): `exports` are export lines relative to the repo root. */
export async function importBundle(options) {
  const outfile = path.join(CACHE, `${options.name}.mjs`);
  await build({
    ...OPTIONS,
    stdin: { contents: options.exports.join("\n"), resolveDir: ROOT, sourcefile: `${options.name}.ts`, loader: "ts" },
    outfile,
  });
  return import(`${outfile}?t=${Date.now()}`);
}
