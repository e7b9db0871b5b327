import type { RuntimeRequest } from "../../../shared/dependency-schemas";

/**
 * The runtimes a project declares, read from the files version managers and package managers use:
 * `.nvmrc`, `.node-version`, `.tool-versions`, package.json's `volta` / `engines` / `packageManager`,
 * `.python-version`, pyproject.toml's `requires-python` and go.mod's `go` line. The dependency step
 * installs the declared Node.js (from the npm registry) and reports Python and Go as Debian offers them.
 */

/** Files that can declare a runtime (package.json, pyproject.toml and go.mod are manifests already). */
export const RUNTIME_FILES: readonly string[] = [".nvmrc", ".node-version", ".tool-versions", ".python-version"];

/** nvm's LTS code names, by major version (lts/* is the newest). */
const LTS_NAMES: Record<string, string> = {
  argon: "4",
  boron: "6",
  carbon: "8",
  dubnium: "10",
  erbium: "12",
  fermium: "14",
  gallium: "16",
  hydrogen: "18",
  iron: "20",
  jod: "22",
  krypton: "24",
};
const NEWEST_LTS = "24";

/** A version manager's Node.js spelling as a semver range, or null for "whatever is newest" and nonsense. */
export function nodeRange(text: string): string | null {
  const value = text.trim().replace(/^v(?=\d)/, "");
  if (!value || /^(node|latest|current|system|stable)$/i.test(value)) return null;
  const lts = /^lts\/(.+)$/i.exec(value)?.[1];
  if (lts) return lts === "*" ? NEWEST_LTS : (LTS_NAMES[lts.toLowerCase()] ?? null);
  // versions and ranges ("22", "22.12.0", ">=20 <23", "^22.12 || ^24"); nothing a shell or npm would read otherwise
  if (!/^[\d\sxX*.^~<>=|-]+$/.test(value) || !/\d/.test(value)) return null;
  return value.replace(/\s+/g, " ");
}

function firstLine(text: string | undefined): string | undefined {
  return text
    ?.split("\n")
    .map((line) => line.replace(/#.*$/, "").trim())
    .find(Boolean);
}

/** `.tool-versions` (asdf, mise): "nodejs 22.12.0", "python 3.12.1", "golang 1.22.0". */
function toolVersion(text: string | undefined, names: string[]): string | undefined {
  for (const line of text?.split("\n") ?? []) {
    const [name, version] = line.replace(/#.*$/, "").trim().split(/\s+/);
    if (name && version && names.includes(name)) return version;
  }
  return undefined;
}

/** A JSON text's top-level object, or null (not JSON, or not an object). */
export function jsonObject(text: string): Record<string, unknown> | null {
  try {
    const parsed: unknown = JSON.parse(text);
    return parsed && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function packageJson(text: string | undefined): Record<string, unknown> {
  return (text && jsonObject(text)) || {};
}

function field(object: unknown, key: string): string | undefined {
  const value = object && typeof object === "object" ? (object as Record<string, unknown>)[key] : undefined;
  return typeof value === "string" ? value : undefined;
}

function nodeRequest(files: Readonly<Record<string, string | undefined>>): RuntimeRequest | null {
  const pkg = packageJson(files["package.json"]);
  const pinned = [
    { source: ".nvmrc", text: firstLine(files[".nvmrc"]) },
    { source: ".node-version", text: firstLine(files[".node-version"]) },
    { source: ".tool-versions", text: toolVersion(files[".tool-versions"], ["nodejs", "node"]) },
    { source: "package.json volta.node", text: field(pkg.volta, "node") },
  ]
    .map((entry) => ({ source: entry.source, range: entry.text ? nodeRange(entry.text) : null }))
    .find((entry) => entry.range !== null);
  const enginesText = field(pkg.engines, "node");
  const engines = enginesText ? nodeRange(enginesText) : null;
  if (pinned?.range && engines && !engines.includes("|"))
    return {
      runtime: "node",
      range: `${pinned.range} ${engines}`,
      source: `${pinned.source} and package.json engines.node`,
    };
  if (pinned?.range) return { runtime: "node", range: pinned.range, source: pinned.source };
  if (engines) return { runtime: "node", range: engines, source: "package.json engines.node" };
  return null;
}

function pythonRequest(files: Readonly<Record<string, string | undefined>>): RuntimeRequest | null {
  const pinned = firstLine(files[".python-version"]) ?? toolVersion(files[".tool-versions"], ["python"]);
  if (pinned && /^[\w.+-]+$/.test(pinned))
    return {
      runtime: "python",
      range: pinned,
      source: files[".python-version"] ? ".python-version" : ".tool-versions",
    };
  const requires = /^\s*requires-python\s*=\s*["']([^"']+)["']/m.exec(files["pyproject.toml"] ?? "")?.[1];
  if (requires) return { runtime: "python", range: requires.trim(), source: "pyproject.toml requires-python" };
  return null;
}

function goRequest(files: Readonly<Record<string, string | undefined>>): RuntimeRequest | null {
  const goMod = files["go.mod"] ?? "";
  const toolchain = /^toolchain\s+go(\d+(?:\.\d+){1,2})\s*$/m.exec(goMod)?.[1];
  const go = /^go\s+(\d+(?:\.\d+){1,2})\s*$/m.exec(goMod)?.[1];
  const asdf = toolVersion(files[".tool-versions"], ["golang", "go"]);
  if (toolchain) return { runtime: "go", range: toolchain, source: "go.mod toolchain" };
  if (go) return { runtime: "go", range: go, source: "go.mod" };
  if (asdf && /^[\d.]+$/.test(asdf)) return { runtime: "go", range: asdf, source: ".tool-versions" };
  return null;
}

/** Every runtime the files declare (file name → its text; absent files are missing or undefined). */
export function declaredRuntimes(files: Readonly<Record<string, string | undefined>>): RuntimeRequest[] {
  return [nodeRequest(files), pythonRequest(files), goRequest(files)].filter(
    (request): request is RuntimeRequest => request !== null,
  );
}

/** package.json's `packageManager` ("pnpm@9.15.0+sha512.…") as a name and an exact version, or null. */
export function packageManagerOf(packageJsonText: string | undefined): { name: string; version: string } | null {
  const value = field(packageJson(packageJsonText), "packageManager");
  const match = value ? /^(npm|pnpm|yarn)@(\d+\.\d+\.\d+(?:-[\w.]+)?)(?:\+.*)?$/.exec(value.trim()) : null;
  return match?.[1] && match[2] ? { name: match[1], version: match[2] } : null;
}

/**
 * Tarballs package.json installs from the project itself (`"x": "file:vendor/x-1.0.0.tgz"`): the step needs them
 * beside the manifests. Paths that leave the project are left out (the install then says what is missing).
 */
export function localTarballsOf(packageJsonText: string | undefined): string[] {
  const pkg = packageJson(packageJsonText);
  const found = new Set<string>();
  for (const group of ["dependencies", "devDependencies", "optionalDependencies"]) {
    const deps = pkg[group];
    if (!deps || typeof deps !== "object") continue;
    for (const spec of Object.values(deps as Record<string, unknown>)) {
      const file = typeof spec === "string" ? /^file:(?:\.\/)?([\w./-]+\.(?:tgz|tar\.gz))$/.exec(spec)?.[1] : undefined;
      if (file && file.split("/").every((part) => part && part !== "." && part !== "..")) found.add(file);
    }
  }
  return [...found].sort();
}
