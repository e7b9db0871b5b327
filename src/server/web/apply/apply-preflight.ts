import fs from "node:fs/promises";
import type { FileState } from "../../core/diffs/workspace-diff";
import {
  ancestorsOf,
  bytesOf,
  displayPath,
  fromBytes,
  toFsPath,
  unsafePathReason,
  type BytePath,
} from "../../../lib/files/byte-path";
import { hashRegularFile, NotRegularFileError, sha256Of } from "../../../lib/files/file-read";
import { alwaysExcludedRule } from "../../../lib/files/tree-walker";
import type { ApplyPlan, PlanStep } from "./apply-plan";
import type { Conflict, CurrentState } from "./apply-conflict";
import { escapingLinks } from "./link-conflicts";

/** What is at a project path now, without following links. */
export async function currentState(root: string, rel: BytePath): Promise<CurrentState> {
  const fsPath = toFsPath(root, rel);
  let stat;
  try {
    stat = await fs.lstat(fsPath);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return null;
    throw error;
  }
  if (stat.isSymbolicLink()) {
    const target = await fs.readlink(fsPath, { encoding: "buffer" });
    return {
      type: "symlink",
      mode: "120000",
      size: target.length,
      sha256: sha256Of(target),
      target: fromBytes(target),
    };
  }
  if (stat.isDirectory()) return { type: "directory" };
  if (!stat.isFile()) return { type: "other" };
  try {
    const { sha256, size, executable } = await hashRegularFile(fsPath);
    return { type: "file", mode: executable ? "100755" : "100644", size, sha256 };
  } catch (error) {
    if (error instanceof NotRegularFileError) return currentState(root, rel); // swapped while looking: look again
    throw error;
  }
}

/** Whether the current state is the expected one; a conflict otherwise. */
export function compareState(rel: BytePath, expected: FileState | null, current: CurrentState): Conflict | null {
  const shown = displayPath(rel);
  if (!expected) {
    if (!current) return null;
    const what =
      current.type === "directory"
        ? "a directory is in the way"
        : current.type === "symlink"
          ? "a symlink was created here since the snapshot"
          : "a file was created here since the snapshot";
    return { path: rel, reason: "exists", message: `${shown}: ${what}.` };
  }
  if (!current)
    return { path: rel, reason: "missing", message: `${shown} was deleted from the project since the snapshot.` };
  if (current.type !== expected.type) {
    const now =
      current.type === "symlink"
        ? "a symlink"
        : current.type === "directory"
          ? "a directory"
          : current.type === "file"
            ? "a regular file"
            : "a special file";
    return {
      path: rel,
      reason: "type-changed",
      message: `${shown} was ${expected.type === "symlink" ? "a symlink" : "a regular file"} in the snapshot and is now ${now}.`,
    };
  }
  if (current.sha256 !== expected.sha256) {
    return {
      path: rel,
      reason: "changed",
      message:
        expected.type === "symlink"
          ? `${shown}: the symlink now points elsewhere than in the snapshot.`
          : `${shown} was changed in the project since the snapshot.`,
    };
  }
  if (current.mode !== expected.mode)
    return { path: rel, reason: "mode-changed", message: `${shown}: its executable bit changed since the snapshot.` };
  return null;
}

/**
 * Parent directories of `rel` in the project: each must be a real directory, or missing (to be
 * created). A regular file in the way is fine only if the plan deletes it (`deleted`).
 */
export async function checkParents(
  root: string,
  rel: BytePath,
  deleted: ReadonlySet<BytePath>,
): Promise<Conflict | null> {
  for (const dir of ancestorsOf(rel)) {
    let stat;
    try {
      stat = await fs.lstat(toFsPath(root, dir));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return null;
      throw error;
    }
    if (stat.isSymbolicLink()) {
      return {
        path: rel,
        reason: "symlink-in-path",
        message: `${displayPath(rel)}: its parent ${displayPath(dir)} is a symlink in the project; writing through it could reach outside the project.`,
      };
    }
    if (stat.isDirectory()) continue;
    if (stat.isFile() && deleted.has(dir)) return null;
    return {
      path: rel,
      reason: "not-a-directory",
      message: `${displayPath(rel)}: its parent ${displayPath(dir)} is not a directory in the project.`,
    };
  }
  return null;
}

function staticConflicts(step: PlanStep, seen: Set<BytePath>): Conflict | null {
  const shown = displayPath(step.path);
  const unsafe = unsafePathReason(step.path);
  if (unsafe)
    return {
      path: step.path,
      reason: "unsafe-path",
      message: `${shown}: ${unsafe}; it could point outside the project.`,
    };
  if (seen.has(step.path))
    return { path: step.path, reason: "duplicate-path", message: `${shown} appears twice in the plan.` };
  seen.add(step.path);
  for (const candidate of [...ancestorsOf(step.path), step.path]) {
    const rule = alwaysExcludedRule(candidate, candidate !== step.path);
    if (rule)
      return {
        path: step.path,
        reason: "excluded-path",
        message: `${shown} is covered by the always-excluded rule "${rule.pattern}" (${rule.category}); apply never writes there.`,
      };
  }
  const expectedAction = !step.before ? "create" : !step.after ? "delete" : "modify";
  if (step.action !== expectedAction || (!step.before && !step.after))
    return { path: step.path, reason: "unsafe-path", message: `${shown}: the step is inconsistent (${step.action}).` };
  return null;
}

/**
 * Checks a plan against the project as it is now. Any conflict refuses the whole plan:
 *  - a path that is unsafe (absolute, "..", ".", empty segments, NUL) or always excluded (.git, secrets);
 *  - a parent directory that is a symlink (writing through it could leave the project) or a file;
 *  - a file changed, deleted, created, re-moded or swapped for a symlink since the snapshot;
 *  - a new symlink that leads outside the project once every link on its way is followed (in the tree
 *    the apply would leave), or an existing link the plan makes lead outside (link-conflicts.ts).
 *
 * Every conflict of the plan with the project at `projectRoot`; empty means it can be applied.
 * `restoring`: the plan puts back what an apply replaced (an undo), so a symlink that was there
 * before may point anywhere it pointed then.
 */
export async function preflightPlan(options: {
  projectRoot: string;
  plan: ApplyPlan;
  restoring?: boolean;
  /** The snapshot's symlinks: one that stays inside the project now must not be made to leave it. */
  existingLinks?: readonly BytePath[];
}): Promise<Conflict[]> {
  const { projectRoot: root, plan } = options;
  const rootStat = await fs.lstat(root).catch(() => null);
  if (!rootStat?.isDirectory())
    return [
      {
        path: "",
        reason: "root-not-directory",
        message: `The project directory ${root} is missing or no longer a directory.`,
      },
    ];
  const conflicts: Conflict[] = [];
  const seen = new Set<BytePath>();
  const deleted = new Set(plan.steps.filter((step) => step.after === null).map((step) => step.path));
  for (const step of plan.steps) {
    const fixed = staticConflicts(step, seen);
    if (fixed) {
      conflicts.push(fixed);
      continue;
    }
    const parent = await checkParents(root, step.path, deleted);
    if (parent) {
      conflicts.push(parent);
      continue;
    }
    const current = await currentState(root, step.path);
    const state = compareState(step.path, step.before, current);
    if (state) conflicts.push({ ...state, current });
  }
  if (!options.restoring)
    conflicts.push(...(await escapingLinks({ root, plan, existingLinks: options.existingLinks ?? [] })));
  return conflicts;
}

/** Bytes of a link target, for creating the link. */
export function targetBytes(state: FileState): Buffer {
  return bytesOf(state.target ?? "");
}
