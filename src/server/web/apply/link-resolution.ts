import fs from "node:fs/promises";
import { ancestorsOf, fromBytes, parentOf, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import type { PlanStep } from "./apply-plan";

/**
 * Where a symlink leads once every link on the way is followed, as the kernel would: a link's
 * target is resolved component by component, and each component that is itself a link (in the tree
 * the apply would leave behind: the plan's new states over the project as it is now) is replaced by
 * its own target. So `sub/up -> ..` plus `esc -> sub/up/..` is seen to climb out of the project,
 * which a lexical check of `esc` alone misses.
 */

/** What a path is in a tree, as far as resolving links cares. */
export type LinkLookupEntry = { type: "symlink"; target: BytePath } | { type: "other" } | null;
export type LinkLookup = (rel: BytePath) => Promise<LinkLookupEntry>;

/** The kernel gives up after 40 links in one resolution (ELOOP); so do we. */
const MAX_LINK_HOPS = 40;

export type LinkResolution =
  { inside: true } | { inside: false; why: "absolute" | "climbs-out" | "loop"; via: BytePath };

function split(target: BytePath): BytePath[] {
  return target.split("/").filter((segment) => segment !== "" && segment !== ".");
}

/** Resolves the link at `rel` (whose target is `target`) through `lookup`; says whether it stays inside the tree. */
export async function resolveLink(options: {
  rel: BytePath;
  target: BytePath;
  lookup: LinkLookup;
}): Promise<LinkResolution> {
  const { rel, lookup } = options;
  if (options.target.startsWith("/") || options.target === "") return { inside: false, why: "absolute", via: rel };
  const parts = parentOf(rel) === "" ? [] : parentOf(rel).split("/");
  let pending = split(options.target);
  let hops = 0;
  let via = rel;
  while (pending.length > 0) {
    const segment = pending.shift() ?? "";
    if (segment === "..") {
      if (parts.length === 0) return { inside: false, why: "climbs-out", via };
      parts.pop();
      continue;
    }
    parts.push(segment);
    const here = parts.join("/");
    const entry = await lookup(here);
    if (entry?.type !== "symlink") continue;
    hops += 1;
    if (hops > MAX_LINK_HOPS) return { inside: false, why: "loop", via: here };
    via = here;
    if (entry.target.startsWith("/") || entry.target === "") return { inside: false, why: "absolute", via: here };
    parts.pop();
    pending = [...split(entry.target), ...pending];
  }
  return { inside: true };
}

/** The project as it is now: links are read, nothing is followed. */
export function projectLookup(root: string): LinkLookup {
  return async (rel) => {
    const fsPath = toFsPath(root, rel);
    const stat = await fs.lstat(fsPath).catch(() => null);
    if (!stat) return null;
    if (!stat.isSymbolicLink()) return { type: "other" };
    return { type: "symlink", target: fromBytes(await fs.readlink(fsPath, { encoding: "buffer" })) };
  };
}

/** The tree the plan would leave: its steps' `after` states over the project as it is now. */
export function finalTreeLookup(options: { root: string; steps: readonly PlanStep[] }): LinkLookup {
  const planned = new Map(options.steps.map((step) => [step.path, step.after]));
  const createdDirs = new Set<BytePath>();
  for (const step of options.steps) if (step.after) for (const dir of ancestorsOf(step.path)) createdDirs.add(dir);
  const project = projectLookup(options.root);
  return async (rel) => {
    if (createdDirs.has(rel)) return { type: "other" };
    if (planned.has(rel)) {
      const after = planned.get(rel);
      if (!after) return null;
      return after.type === "symlink" ? { type: "symlink", target: after.target ?? "" } : { type: "other" };
    }
    // below a path the plan turns into a file or removes, the project's old entries are not reachable
    if (ancestorsOf(rel).some((dir) => planned.has(dir))) return null;
    return project(rel);
  };
}

/** A sentence for a link that leaves the project. */
export function escapeDescription(resolution: Exclude<LinkResolution, { inside: true }>, self: boolean): string {
  if (resolution.why === "loop") return "its chain of links does not end (more than 40 links)";
  if (resolution.why === "absolute")
    return self ? "its target is an absolute path" : `it leads through a link with an absolute target`;
  return self
    ? "its target climbs out of the project"
    : "followed through the links on its way, it climbs out of the project";
}
