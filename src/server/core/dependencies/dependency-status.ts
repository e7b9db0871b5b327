import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { DependencyStep, InstalledDependencies, ManifestChange } from "../../../shared/dependency-schemas";

/** sha256 of a file in the project, or null when it is not a regular file there. */
export async function hashProjectFile(options: { root: string; file: string }): Promise<string | null> {
  const target = path.join(options.root, options.file);
  const stat = await fs.lstat(target).catch(() => null);
  if (!stat?.isFile()) return null;
  return createHash("sha256")
    .update(await fs.readFile(target))
    .digest("hex");
}

/** The names of the regular files at the project's root (what detection looks at). */
export async function rootFiles(root: string): Promise<string[]> {
  const entries = await fs.readdir(root, { withFileTypes: true }).catch(() => []);
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

/**
 * How the project's manifests differ from those the installed dependencies were made from: a
 * recorded manifest changed or is gone, or one the step reads now exists and did not then.
 */
export async function manifestChanges(options: {
  root: string;
  installed: InstalledDependencies;
  step: DependencyStep | null;
}): Promise<ManifestChange[]> {
  const changes: ManifestChange[] = [];
  const recorded = new Map(options.installed.manifests.map((manifest) => [manifest.path, manifest.sha256]));
  for (const file of new Set([...recorded.keys(), ...(options.step?.manifests ?? [])])) {
    const now = await hashProjectFile({ root: options.root, file });
    const then = recorded.get(file) ?? null;
    if (now === then) continue;
    changes.push({ path: file, change: then === null ? "added" : now === null ? "removed" : "changed" });
  }
  return changes;
}

function list(paths: string[]): string {
  if (paths.length <= 1) return paths.join("");
  return `${paths.slice(0, -1).join(", ")} and ${paths.at(-1)}`;
}

/** The sentence the project page and the study form show, or null when the dependencies are in step. */
export function dependencyWarning(options: {
  step: DependencyStep | null;
  installed: InstalledDependencies | null;
  changes: ManifestChange[];
}): string | null {
  const { step, installed, changes } = options;
  if (!installed) {
    if (!step) return null;
    return `${list(step.manifests)} ${step.manifests.length === 1 ? "is" : "are"} here but the environment has no installed dependencies — install them on the project page (Dependencies), or tests that need them will fail to load.`;
  }
  if (!changes.length) return null;
  return `${list(changes.map((change) => change.path))} changed since the dependencies were installed — prepare again (Dependencies → Install dependencies on the project page).`;
}
