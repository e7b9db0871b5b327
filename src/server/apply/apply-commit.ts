import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import type { FileState } from "../diffs/workspace-diff";
import { ancestorsOf, displayPath, toFsPath, toPathText } from "../../lib/files/byte-path";
import { APPLY_STAGING_PREFIX } from "../../lib/files/exclusion-rules";
import { NotRegularFileError, openRegularFile } from "../../lib/files/file-read";
import { runLimited } from "../../lib/files/run-limited";
import type { ApplyPlan, PlanStep } from "./apply-plan";
import { checkParents, compareState, currentState, targetBytes, type Conflict } from "./apply-preflight";

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

/** The project or workspace changed between the preflight and the commit. */
export class ApplyConflictError extends Error {
  constructor(readonly conflicts: Conflict[]) {
    super(conflicts.map((conflict) => conflict.message).join(" "));
  }
}

/** Step 2 failed and every change was undone; `conflicts` when it failed because the project changed meanwhile. */
export class ApplyRolledBackError extends Error {
  constructor(
    message: string,
    readonly conflicts: Conflict[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** Step 2 failed and some changes could not be undone; the staging directory keeps the backups. */
export class ApplyRollbackIncompleteError extends Error {
  constructor(
    message: string,
    readonly stagingDir: string,
  ) {
    super(message);
  }
}

const COPY_CHUNK = 1024 * 1024;

/** Copies a workspace file into staging without following links, checking its hash. */
async function stageFile(source: Buffer, dest: string, step: PlanStep, mode: number): Promise<void> {
  let opened;
  try {
    opened = await openRegularFile(source);
  } catch (error) {
    if (error instanceof NotRegularFileError)
      throw new ApplyConflictError([
        {
          path: step.path,
          reason: "workspace-changed",
          message: `${displayPath(step.path)} in the workspace ${error.message}; preview again.`,
        },
      ]);
    throw error;
  }
  const out = await fs.open(dest, "wx", 0o600);
  const hash = createHash("sha256");
  try {
    const chunk = Buffer.allocUnsafe(COPY_CHUNK);
    for (;;) {
      const { bytesRead } = await opened.handle.read(chunk, 0, COPY_CHUNK, null);
      if (bytesRead === 0) break;
      hash.update(chunk.subarray(0, bytesRead));
      await out.write(chunk, 0, bytesRead);
    }
    await out.chmod(mode);
  } finally {
    await out.close();
    await opened.handle.close();
  }
  if (hash.digest("hex") !== step.after?.sha256) {
    throw new ApplyConflictError([
      {
        path: step.path,
        reason: "workspace-changed",
        message: `${displayPath(step.path)} changed in the workspace after the plan was made; preview again.`,
      },
    ]);
  }
}

/** Permission bits for a new version of a file: keep the project file's bits, set or clear exec as the plan says. */
async function modeFor(projectRoot: string, step: PlanStep): Promise<number> {
  const executable = step.after?.mode === "100755";
  const stat = step.before?.type === "file" ? await fs.lstat(toFsPath(projectRoot, step.path)).catch(() => null) : null;
  if (!stat?.isFile()) return executable ? 0o755 : 0o644;
  const bits = stat.mode & 0o7777;
  return executable ? bits | ((bits & 0o444) >> 2) : bits & ~0o111;
}

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

export async function commitPlan(options: {
  projectRoot: string;
  plan: ApplyPlan;
  sourceRoot: string;
  fs?: ApplyFs;
}): Promise<{ written: number; removedDirs: number }> {
  const { projectRoot: root, plan, sourceRoot } = options;
  const ops = options.fs ?? nodeApplyFs;
  const staging = path.join(root, `${APPLY_STAGING_PREFIX}${randomBytes(6).toString("hex")}`);
  const staged = (index: number) => path.join(staging, "new", String(index));
  const backup = (index: number) => path.join(staging, "backup", String(index));

  // 1. stage
  await fs.mkdir(staging, { mode: 0o700 });
  try {
    await fs.mkdir(path.join(staging, "new"));
    await fs.mkdir(path.join(staging, "backup"));
    await runLimited(plan.steps, 8, async (step, index) => {
      if (step.after?.type === "file")
        await stageFile(toFsPath(sourceRoot, step.path), staged(index), step, await modeFor(root, step));
    });
    const journal = plan.steps.map((step, index) => ({
      index,
      action: step.action,
      ...toPathText(step.path),
      backup: `backup/${index}`,
      staged: `new/${index}`,
    }));
    await fs.writeFile(
      path.join(staging, "journal.json"),
      JSON.stringify({ planHash: plan.hash, steps: journal }, null, 1),
    );
  } catch (error) {
    await fs.rm(staging, { recursive: true, force: true });
    throw error;
  }

  // 2. commit
  const undo: Undo[] = [];
  const deleted = new Set(plan.steps.filter((step) => step.after === null).map((step) => step.path));
  try {
    for (const [index, step] of plan.steps.entries()) {
      if (!step.before) continue;
      const target = toFsPath(root, step.path);
      const parent = await checkParents(root, step.path, new Set());
      if (parent) throw new ApplyConflictError([parent]);
      await ops.rename(target, backup(index));
      undo.push({ kind: "restore", backup: backup(index), target });
      const moved = compareState(
        step.path,
        step.before,
        await currentState(path.join(staging, "backup"), String(index)),
      );
      if (moved) throw new ApplyConflictError([moved]);
    }
    const ordered = [...plan.steps.entries()]
      .filter(([, step]) => step.after)
      .sort(([, a], [, b]) => (a.path < b.path ? -1 : 1));
    for (const [index, step] of ordered) {
      const after = step.after as FileState;
      const target = toFsPath(root, step.path);
      const parent = await checkParents(root, step.path, deleted);
      if (parent) throw new ApplyConflictError([parent]);
      for (const dir of ancestorsOf(step.path)) {
        const stat = await fs.lstat(toFsPath(root, dir)).catch(() => null);
        if (stat?.isDirectory()) continue;
        await ops.mkdir(toFsPath(root, dir));
        undo.push({ kind: "rmdir", dir: toFsPath(root, dir) });
      }
      if (after.type === "symlink") await ops.symlink(targetBytes(after), target);
      else await placeFile(ops, staged(index), target);
      undo.push({ kind: "remove", target });
      if (after.type === "file")
        await ops.unlink(staged(index)).catch((error: NodeJS.ErrnoException) => {
          if (error.code !== "ENOENT") throw error; // gone already when placeFile renamed it
        });
    }
  } catch (error) {
    const failures = await rollback(undo, ops);
    if (failures.length > 0) {
      throw new ApplyRollbackIncompleteError(
        `Apply failed (${error instanceof Error ? error.message : String(error)}) and ${failures.length} change(s) could not be undone: ${failures.join("; ")}. The replaced files are kept in ${staging}/backup (see journal.json there).`,
        staging,
      );
    }
    await fs.rm(staging, { recursive: true, force: true });
    const conflicts = error instanceof ApplyConflictError ? error.conflicts : [];
    throw new ApplyRolledBackError(
      `Apply failed midway (${error instanceof Error ? error.message : String(error)}); every change was undone and the project is as it was.`,
      conflicts,
      { cause: error },
    );
  }

  // 3. done: remove directories the deletions emptied (as git does), then the staging area
  let removedDirs = 0;
  const emptied = [...new Set([...deleted].flatMap((rel) => ancestorsOf(rel)))].sort((a, b) => b.length - a.length);
  for (const dir of emptied) {
    await ops.rmdir(toFsPath(root, dir)).then(
      () => removedDirs++,
      () => undefined,
    );
  }
  await fs.rm(staging, { recursive: true, force: true });
  return { written: plan.steps.length, removedDirs };
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
      failures.push(`${item.kind} ${where.toString()}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return failures;
}
