import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { packageRoot } from "../../../lib/package-info";

/**
 * Where better-sqlite3's native addon comes from. An install that ran better-sqlite3's own install
 * script has its build (node_modules/better-sqlite3/build/Release); one that skipped it — npm 11 skips
 * the install scripts of dependencies nobody approved, as with `npx invariant-web` — uses the addon the
 * package ships in dist/native/, built by `npm pack`'s prepack step for its platform and Node.js ABI.
 */
export function shippedSqliteBindingName(): string {
  return `better_sqlite3-${process.platform}-${process.arch}-abi${process.versions.modules}.node`;
}

let chosen: { nativeBinding?: string } | null = null;

/** The better-sqlite3 options that pick its addon: `{}` for its own build, else the shipped one. */
export function sqliteBindingOptions(): { nativeBinding?: string } {
  if (chosen) return chosen;
  const require = createRequire(import.meta.url);
  const own = path.join(path.dirname(require.resolve("better-sqlite3/package.json")), "build", "Release");
  if (fs.existsSync(path.join(own, "better_sqlite3.node"))) return (chosen = {});
  const shipped = path.join(packageRoot(), "dist", "native", shippedSqliteBindingName());
  if (fs.existsSync(shipped)) return (chosen = { nativeBinding: shipped });
  throw new Error(
    `better-sqlite3 has no native addon for ${process.platform}-${process.arch} and Node.js ABI ${process.versions.modules}: ` +
      `its install script did not run and this package ships none for this platform. Run \`npm rebuild better-sqlite3\` ` +
      `where invariant-web is installed (or install it with --allow-scripts=better-sqlite3).`,
  );
}
