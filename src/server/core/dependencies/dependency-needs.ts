import fs from "node:fs/promises";
import path from "node:path";
import type { DependencyStep } from "../../../shared/dependency-schemas";
import { declaredRuntimes, jsonObject } from "./runtime-declarations";

const PACKAGE_GROUPS = ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"];
const NODE_LOCKFILES = ["package-lock.json", "npm-shrinkwrap.json", "pnpm-lock.yaml", "yarn.lock"];

const nonEmpty = (value: unknown) =>
  value !== undefined && (typeof value !== "object" || value === null || Object.keys(value).length > 0);

function packageJsonDeclaresNothing(text: string): boolean {
  const pkg = jsonObject(text);
  if (!pkg) return false;
  if ([...PACKAGE_GROUPS, "workspaces", "bundleDependencies", "bundledDependencies"].some((key) => nonEmpty(pkg[key])))
    return false;
  return declaredRuntimes({ "package.json": text }).length === 0;
}

/** A lockfile that lists no package (what npm, pnpm and yarn write for a package.json without dependencies). */
function lockfileListsNothing(name: string, text: string): boolean {
  if (name === "pnpm-lock.yaml") return !/^packages:[ \t]*\r?\n(?:[ \t]*\r?\n)*[ \t]+\S/m.test(text);
  if (name === "yarn.lock")
    return text.split(/\r?\n/).every((line) => !/^\S/.test(line) || line.startsWith("#") || line === "__metadata:");
  const lock = jsonObject(text);
  if (!lock) return false;
  const packages = Object.keys((lock.packages as Record<string, unknown> | undefined) ?? {}).filter((key) => key);
  return packages.length === 0 && !nonEmpty(lock.dependencies);
}

const onlyComments = (text: string) => text.split(/\r?\n/).every((line) => !line.replace(/#.*$/, "").trim());

/**
 * Whether a detected dependency step would install nothing: its manifests declare no package (and no
 * runtime), so the project needs no install and no warning about one. Only the certain cases answer true —
 * a package.json without dependencies, devDependencies, optionalDependencies, peerDependencies or workspaces
 * (and a lockfile, if any, without packages); requirements files of only comments and blank lines. Anything
 * else (pyproject.toml, go.mod, Cargo.toml, a runtime file, an unreadable manifest) may need an install.
 */
export async function stepInstallsNothing(root: string, step: DependencyStep): Promise<boolean> {
  const read = (file: string) => fs.readFile(path.join(root, file), "utf8").catch(() => null);
  if (step.kind === "npm" || step.kind === "pnpm" || step.kind === "yarn") {
    for (const file of step.manifests) {
      const text = await read(file);
      if (text === null) return false;
      if (file === "package.json" ? !packageJsonDeclaresNothing(text) : !NODE_LOCKFILES.includes(file)) return false;
      if (NODE_LOCKFILES.includes(file) && !lockfileListsNothing(file, text)) return false;
    }
    return step.manifests.includes("package.json");
  }
  if (step.kind === "python") {
    if (!step.manifests.every((file) => /^requirements[\w.-]*\.txt$/.test(file))) return false;
    for (const file of step.manifests) {
      const text = await read(file);
      if (text === null || !onlyComments(text)) return false;
    }
    return step.manifests.length > 0;
  }
  return false;
}
