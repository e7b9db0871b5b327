import { z } from "zod";

/**
 * "Apply as a branch" (docs/review-and-apply.md): a finished trial's changes as one commit on a new branch
 * `invariant/<study>-<number>` of the project's git repository, from the commit its study's snapshot was
 * taken on; optionally pushed to one of the repository's remotes. Each branch made is a ResultBranch row.
 */

const trialId = z.string().min(1, "Choose a trial.").max(100);

/** A remote of the repository by its name (`origin`), as `git remote` lists it. */
export const remoteNameSchema = z
  .string()
  .min(1, "Name a remote of the repository, such as origin.")
  .max(100, "A remote name is at most 100 characters.")
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*(\/[A-Za-z0-9][A-Za-z0-9._-]*)*$/,
    "A remote name is letters, digits, '.', '_', '-' and '/' (as git remote lists them), such as origin.",
  )
  .refine((name) => !name.includes("..") && !name.endsWith(".lock"), "That is not a valid remote name.");

export const branchPreviewInputSchema = z.strictObject({ trialId });
export const branchCreateInputSchema = z.strictObject({
  trialId,
  /** Push the new branch to this remote (absent or null: do not push). */
  remote: remoteNameSchema.nullable().optional(),
});
export const branchListInputSchema = z.strictObject({
  projectId: z.string().min(1, "Choose a project.").max(100),
  /** Only this trial's branches. */
  trialId: trialId.optional(),
});
export const branchRemoveInputSchema = z.strictObject({
  branchId: z.string().min(1, "Choose a branch to remove.").max(100),
});

export interface ResultBranchView {
  id: string;
  projectId: string;
  trialId: string | null;
  studyId: string | null;
  studyTitle: string | null;
  /** "Trial 2.1", or null when the trial is gone. */
  trialName: string | null;
  /** The branch, e.g. invariant/fix-the-calendar-2.1 (refs/heads/ + this). */
  name: string;
  commit: string;
  /** The commit the study's snapshot was taken on: the branch's parent. */
  baseCommit: string;
  createdBy: string;
  /** The remote it was pushed to, and when; null when it was not pushed. */
  remote: string | null;
  pushedAt: string | null;
  /** When it was deleted from the repository (the row stays in the history). */
  removedAt: string | null;
  createdAt: string;
}

export interface GitRemoteView {
  name: string;
  /** Where `git push` sends it (credentials in the URL are not shown). */
  url: string;
}

/** What Apply as a branch would do for a trial, shown before it is done. */
export interface BranchPreviewView {
  trialId: string;
  projectId: string;
  /** The branch it would create. */
  name: string;
  /** The snapshot's commit (the branch's parent); null when the study has none. */
  baseCommit: string | null;
  /** Why it cannot be done now (not a git repository, no commit, the branch exists), or null. */
  problem: string | null;
  remotes: GitRemoteView[];
  /** This trial's branch, when one was made and not removed. */
  existing: ResultBranchView | null;
}

export interface BranchPushView {
  remote: string;
  ok: boolean;
  /** git push's output (on failure, what went wrong). */
  output: string;
}

export interface BranchCreateView {
  branch: ResultBranchView;
  /** Paths the commit changes. */
  files: number;
  /** The push, when a remote was asked for; the branch exists either way. */
  push: BranchPushView | null;
}
