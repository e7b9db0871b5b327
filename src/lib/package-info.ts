import fs from "node:fs";
import path from "node:path";

/** The package root: the bundles live in <root>/dist, sources in <root>/src/cli. */
export function packageRoot(): string {
  let dir = import.meta.dirname;
  while (!fs.existsSync(path.join(dir, "package.json"))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error("invariant-web: cannot find its package.json");
    dir = parent;
  }
  return dir;
}

export function packageVersion(root: string): string {
  return (JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8")) as { version: string }).version;
}
