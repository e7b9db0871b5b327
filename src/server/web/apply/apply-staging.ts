import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { displayPath, toFsPath, toPathText } from "../../../lib/files/byte-path";
import { APPLY_STAGING_PREFIX } from "../../../lib/files/exclusion-rules";
import { NotRegularFileError, openRegularFile } from "../../../lib/files/file-read";
import { runLimited } from "../../../lib/files/run-limited";
import { ApplyConflictError } from "./apply-errors";
import type { ApplyPlan, PlanStep } from "./apply-plan";

/**
 * The staging directory of one apply, inside the project (same filesystem, so moves are renames):
 * new/<n> holds step n's new file, backup/<n> the file it replaces, journal.json the plan's steps.
 */
export interface Staging {
  dir: string;
  staged: (index: number) => string;
  backup: (index: number) => string;
}

/** 1. Copies every new file into staging/new/ (verified against the plan) and writes the journal. Nothing in the project changes. */
export async function stagePlan(options: {
  root: string;
  plan: ApplyPlan;
  sourceRoot: string;
  staging: Staging;
  /** Take each new file's permission bits from its source (an undo) rather than from the project file it replaces. */
  keepSourceModes: boolean;
}) {
  const { root, plan, staging } = options;
  await fs.mkdir(staging.dir, { mode: 0o700 });
  try {
    await fs.mkdir(path.join(staging.dir, "new"));
    await fs.mkdir(path.join(staging.dir, "backup"));
    await runLimited(plan.steps, 8, async (step, index) => {
      if (step.after?.type !== "file") return;
      const source = toFsPath(options.sourceRoot, step.path);
      const mode = options.keepSourceModes ? await sourceModeFor(source, step) : await modeFor(root, step);
      await stageFile(source, staging.staged(index), step, mode);
    });
    const journal = plan.steps.map((step, index) => ({
      index,
      action: step.action,
      ...toPathText(step.path),
      backup: `backup/${index}`,
      staged: `new/${index}`,
    }));
    await fs.writeFile(
      path.join(staging.dir, "journal.json"),
      JSON.stringify({ planHash: plan.hash, steps: journal }, null, 1),
    );
  } catch (error) {
    await fs.rm(staging.dir, { recursive: true, force: true });
    throw error;
  }
}

export function stagingIn(projectRoot: string): Staging {
  const dir = path.join(projectRoot, `${APPLY_STAGING_PREFIX}${randomBytes(6).toString("hex")}`);
  return {
    dir,
    staged: (index) => path.join(dir, "new", String(index)),
    backup: (index) => path.join(dir, "backup", String(index)),
  };
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

/** The source file's own permission bits, as long as its owner-execute bit is the plan's (it decides the git mode). */
async function sourceModeFor(source: Buffer, step: PlanStep): Promise<number> {
  const executable = step.after?.mode === "100755";
  const stat = await fs.lstat(source).catch(() => null);
  if (!stat?.isFile()) return executable ? 0o755 : 0o644;
  const bits = stat.mode & 0o7777;
  if (((bits & 0o100) !== 0) === executable) return bits;
  return executable ? bits | ((bits & 0o444) >> 2) : bits & ~0o111;
}

/** Permission bits for a new version of a file: keep the project file's bits, set or clear exec as the plan says. */
async function modeFor(projectRoot: string, step: PlanStep): Promise<number> {
  const executable = step.after?.mode === "100755";
  const stat = step.before?.type === "file" ? await fs.lstat(toFsPath(projectRoot, step.path)).catch(() => null) : null;
  if (!stat?.isFile()) return executable ? 0o755 : 0o644;
  const bits = stat.mode & 0o7777;
  return executable ? bits | ((bits & 0o444) >> 2) : bits & ~0o111;
}
