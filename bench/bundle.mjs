// Bundles a TypeScript module of the app for a benchmark (esbuild, like scripts/build.mjs) and imports it.
import path from "node:path";
import { build } from "esbuild";
import { ROOT } from "./lib.mjs";

export async function importSource(relativePath) {
  const outfile = path.join(ROOT, "node_modules", ".cache", "invariant-bench", `${path.basename(relativePath, ".ts")}.mjs`);
  await build({ entryPoints: [path.join(ROOT, relativePath)], outfile, bundle: true, format: "esm", platform: "node", target: "node20", packages: "external", logLevel: "warning", absWorkingDir: ROOT });
  return import(outfile);
}
