import fs from "node:fs/promises";
import path from "node:path";
import type { FileState } from "../../core/diffs/workspace-diff";
import { ancestorsOf, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import { ApplyConflictError, ApplyRollbackIncompleteError, ApplyRolledBackError } from "./apply-errors";
import type { ApplyPlan, PlanStep } from "./apply-plan";
import { checkParents, compareState, currentState, targetBytes } from "./apply-preflight";
import { stagePlan, stagingIn, type Staging } from "./apply-staging";
import { messageOf } from "../../../shared/error-message";

/**
 * Applies a preflighted plan all-or-nothing.
 * 1. Stage: copy every new file from the workspace into <project>/.invariant-apply-XXXX/new/ (same
 *    filesystem, so later moves are renames), verifying each against the plan's sha256. Nothing in
 *    the project has changed yet; a failure here just removes the staging directory.
 * 2. Commit: move each file to be replaced or deleted into staging/backup/ (rename), then check the
 *    moved file is exactly what the plan expected (this closes the gap since the preflight); create
 *    missing directories; put each new file in place with link()+unlink() (fails rather than
 *    overwrite if something appeared) and each new symlink with symlink().
 * 3. Any failure in 2 undoes every step done so far, in reverse: placed files removed, created
 *    directories removed, backups renamed back. The project is left as it was.
 * Every filesystem call of step 2 and 3 goes through `ApplyFs`, so tests can make one fail.
 */
export interface ApplyFs {
  mkdir: (dir: Buffer) => Promise<void>;
  rmdir: (dir: Buffer) => Promise<void>;
  rename: (from: Buffer | string, to: Buffer | string) => Promise<void>;
  link: (existing: string, newPath: Buffer) => Promise<void>;
  unlink: (file: Buffer | string) => Promise<void>;
  symlink: (target: Buffer, file: Buffer) => Promise<void>;
}

export const nodeApplyFs: ApplyFs = {
  mkdir: async (dir) => {
    await fs.mkdir(dir, { mode: 0o755 });
  },
  rmdir: (dir) => fs.rmdir(dir),
  rename: (from, to) => fs.rename(from, to),
  link: (existing, newPath) => fs.link(existing, newPath),
  unlink: (file) => fs.unlink(file),
  symlink: (target, file) => fs.symlink(target, file),
};

const NO_HARD_LINKS = new Set(["EPERM", "ENOTSUP", "EOPNOTSUPP", "ENOSYS"]);

/**
 * Puts a staged file at `target` without overwriting anything: link() fails if something appeared
 * there since the check (a rename would silently replace it). On filesystems without hard links,
 * falls back to checking the path is free and renaming.
 */
async function placeFile(ops: ApplyFs, staged: string, target: Buffer): Promise<void> {
  try {
    await ops.link(staged, target);
  } catch (error) {
    if (!NO_HARD_LINKS.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
    if (
      await fs.lstat(target).then(
        () => true,
        () => false,
      )
    )
      throw Object.assign(new Error(`${target.toString()} appeared during the apply`), { code: "EEXIST" });
    await ops.rename(staged, target);
  }
}

type Undo =
  | { kind: "restore"; backup: string; target: Buffer }
  | { kind: "rmdir"; dir: Buffer }
  | { kind: "remove"; target: Buffer };

/** 2a. Moves every file to be replaced or deleted into staging/backup/, checking it is what the plan expected. */
async function moveAside(options: { root: string; plan: ApplyPlan; staging: Staging; ops: ApplyFs; undo: Undo[] }) {
  const { root, staging, ops, undo } = options;
  for (const [index, step] of options.plan.steps.entries()) {
    if (!step.before) continue;
    const target = toFsPath(root, step.path);
    const parent = await checkParents(root, step.path, new Set());
    if (parent) throw new ApplyConflictError([parent]);
    await ops.rename(target, staging.backup(index));
    undo.push({ kind: "restore", backup: staging.backup(index), target });
    const moved = compareState(
      step.path,
      step.before,
      await currentState(path.join(staging.dir, "backup"), String(index)),
    );
    if (moved) throw new ApplyConflictError([moved]);
  }
}

/** 2b. Creates missing directories and puts every new file and symlink in place, in path order. */
async function placeNew(options: {
  root: string;
  plan: ApplyPlan;
  staging: Staging;
  ops: ApplyFs;
  undo: Undo[];
  deleted: Set<PlanStep["path"]>;
  created: BytePath[];
}) {
  const { root, staging, ops, undo } = options;
  const ordered = [...options.plan.steps.entries()]
    .filter(([, step]) => step.after)
    .sort(([, a], [, b]) => (a.path < b.path ? -1 : 1));
  for (const [index, step] of ordered) {
    const after = step.after as FileState;
    const target = toFsPath(root, step.path);
    const parent = await checkParents(root, step.path, options.deleted);
    if (parent) throw new ApplyConflictError([parent]);
    for (const dir of ancestorsOf(step.path)) {
      const stat = await fs.lstat(toFsPath(root, dir)).catch(() => null);
      if (stat?.isDirectory()) continue;
      await ops.mkdir(toFsPath(root, dir));
      undo.push({ kind: "rmdir", dir: toFsPath(root, dir) });
      options.created.push(dir);
    }
    if (after.type === "symlink") await ops.symlink(targetBytes(after), target);
    else await placeFile(ops, staging.staged(index), target);
    undo.push({ kind: "remove", target });
    if (after.type === "file")
      await ops.unlink(staging.staged(index)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT") throw error; // gone already when placeFile renamed it
      });
  }
}

/** 3 (on failure). Undoes what step 2 did and throws why; the staging directory stays only if the undo was incomplete. */
async function rollBackAndThrow(options: {
  error: unknown;
  undo: Undo[];
  ops: ApplyFs;
  staging: Staging;
}): Promise<never> {
  const { error, staging } = options;
  const failures = await rollback(options.undo, options.ops);
  if (failures.length > 0) {
    throw new ApplyRollbackIncompleteError(
      `Apply failed (${messageOf(error)}) and ${failures.length} change(s) could not be undone: ${failures.join("; ")}. The replaced files are kept in ${staging.dir}/backup (see journal.json there).`,
      staging.dir,
    );
  }
  await fs.rm(staging.dir, { recursive: true, force: true });
  const conflicts = error instanceof ApplyConflictError ? error.conflicts : [];
  throw new ApplyRolledBackError(
    `Apply failed midway (${messageOf(error)}); every change was undone and the project is as it was.`,
    conflicts,
    { cause: error },
  );
}

/** A directory removed after a commit, with its permission bits (an undo creates it again with them). */
export interface RemovedDir {
  path: BytePath;
  mode: number;
}

/** 3. Removes the candidate directories that are empty now (by default those the deletions emptied, as git does), deepest first. */
async function removeEmptiedDirs(options: { root: string; candidates: BytePath[]; ops: ApplyFs }) {
  const removed: RemovedDir[] = [];
  const emptied = [...new Set(options.candidates)].sort((a, b) => b.length - a.length);
  for (const dir of emptied) {
    const stat = await fs.lstat(toFsPath(options.root, dir)).catch(() => null);
    if (!stat?.isDirectory()) continue;
    await options.ops.rmdir(toFsPath(options.root, dir)).then(
      () => removed.push({ path: dir, mode: stat.mode & 0o7777 }),
      () => undefined,
    );
  }
  return removed;
}

export interface CommitOptions {
  projectRoot: string;
  plan: ApplyPlan;
  /** Where the new files are, at their paths (a workspace, or an apply's kept backup for an undo). */
  sourceRoot: string;
  fs?: ApplyFs;
  /** New files take the source file's permission bits (an undo restores them exactly) instead of the project's. */
  keepSourceModes?: boolean;
  /** Directories to remove when empty after the commit; default: the ancestors of deleted paths. */
  removeDirs?: BytePath[];
  /**
   * Called once every step is done, before cleaning up, with the staging directory whose backup/<n>
   * holds what step n replaced or deleted: an apply keeps them here so it can be undone. If it
   * throws, the whole commit is rolled back.
   */
  keepBackups?: (staging: Staging) => Promise<void>;
}

export interface CommitResult {
  written: number;
  /** Directories the commit created for new files. */
  createdDirs: BytePath[];
  /** Directories it removed because they were left empty. */
  removedDirs: RemovedDir[];
}

export async function commitPlan(options: CommitOptions): Promise<CommitResult> {
  const { projectRoot: root, plan } = options;
  const ops = options.fs ?? nodeApplyFs;
  const staging = stagingIn(root);
  await stagePlan({
    root,
    plan,
    sourceRoot: options.sourceRoot,
    staging,
    keepSourceModes: options.keepSourceModes ?? false,
  });

  const undo: Undo[] = [];
  const createdDirs: BytePath[] = [];
  const deleted = new Set(plan.steps.filter((step) => step.after === null).map((step) => step.path));
  try {
    await moveAside({ root, plan, staging, ops, undo });
    await placeNew({ root, plan, staging, ops, undo, deleted, created: createdDirs });
    await options.keepBackups?.(staging);
  } catch (error) {
    await rollBackAndThrow({ error, undo, ops, staging });
  }

  const candidates = options.removeDirs ?? [...deleted].flatMap((rel) => ancestorsOf(rel));
  const removedDirs = await removeEmptiedDirs({ root, candidates, ops });
  await fs.rm(staging.dir, { recursive: true, force: true });
  return { written: plan.steps.length, createdDirs, removedDirs };
}

/** Undoes in reverse order; returns what could not be undone. */
async function rollback(undo: Undo[], ops: ApplyFs): Promise<string[]> {
  const failures: string[] = [];
  for (const item of [...undo].reverse()) {
    try {
      if (item.kind === "remove") await ops.unlink(item.target);
      else if (item.kind === "rmdir") await ops.rmdir(item.dir);
      else await ops.rename(item.backup, item.target);
    } catch (error) {
      const where = item.kind === "restore" ? item.target : item.kind === "rmdir" ? item.dir : item.target;
      failures.push(`${item.kind} ${where.toString()}: ${messageOf(error)}`);
    }
  }
  return failures;
}
