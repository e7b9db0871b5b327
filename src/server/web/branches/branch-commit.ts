import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { bytesOf, displayPath, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import { openRegularFile, sha256Of } from "../../../lib/files/file-read";
import { AppError } from "../../core/errors/app-error";
import type { FileChange } from "../../core/diffs/workspace-diff";
import { ProjectGitError, projectGitText, runProjectGit } from "../../core/git/project-git";

/**
 * One commit of a trial's changes on top of a base commit, written with plumbing only: a temporary index
 * outside the repository (`GIT_INDEX_FILE`) read from the base commit, each changed file's bytes as a blob
 * (`hash-object -w --no-filters`: no clean filter, no line-ending conversion, byte-exact), the index
 * updated (`update-index --index-info`, modes and symlinks as git stores them, deletions as mode 0),
 * `write-tree`, `commit-tree`, and the branch created by `update-ref` with the expected old value zero,
 * which git refuses atomically when the branch exists. The user's work tree, index and HEAD are never
 * touched; only new objects and the new ref land in the repository.
 */
export interface CommitIdentity {
  name: string;
  email: string;
}

export const DEFAULT_BRANCH_IDENTITY: CommitIdentity = { name: "invariant-web", email: "invariant-web@localhost" };

const ZERO_OID = "0".repeat(40);

function changedSince(rel: BytePath): AppError {
  return new AppError({
    code: "CONFLICT",
    field: "trialId",
    message: `${displayPath(rel)} changed in the trial's workspace while the branch was written. Try again.`,
  });
}

/** Writes one changed path's new bytes as a blob; its content must still be the diff's (sha256). */
async function writeBlob(options: { gitDir: string; sourceRoot: string; change: FileChange }): Promise<string> {
  const { change } = options;
  const after = change.after;
  if (!after) throw new Error("a deletion has no blob");
  const fsPath = toFsPath(options.sourceRoot, change.path);
  const hashObject = ["hash-object", "-w", "--no-filters", "-t", "blob", "--stdin"];
  if (after.type === "symlink") {
    const target = await fs.readlink(fsPath, { encoding: "buffer" }).catch(() => null);
    if (!target || sha256Of(target) !== after.sha256) throw changedSince(change.path);
    return projectGitText({ gitDir: options.gitDir, args: hashObject, input: target });
  }
  const { handle, executable } = await openRegularFile(fsPath).catch(() => {
    throw changedSince(change.path);
  });
  if ((executable ? "100755" : "100644") !== after.mode) {
    await handle.close();
    throw changedSince(change.path);
  }
  const stream = handle.createReadStream({ highWaterMark: 1024 * 1024 });
  const hash = createHash("sha256");
  stream.on("data", (chunk) => hash.update(chunk));
  const oid = await projectGitText({ gitDir: options.gitDir, args: hashObject, input: stream, timeoutMs: 600_000 });
  if (hash.digest("hex") !== after.sha256) throw changedSince(change.path);
  return oid;
}

/** `update-index -z --index-info` records: deletions first, so a file may replace a folder the trial removed. */
async function indexRecords(options: {
  gitDir: string;
  sourceRoot: string;
  changes: readonly FileChange[];
}): Promise<Buffer> {
  const records: Buffer[] = [];
  for (const change of options.changes)
    if (!change.after)
      records.push(Buffer.concat([Buffer.from(`0 ${ZERO_OID}\t`), bytesOf(change.path), Buffer.of(0)]));
  for (const change of options.changes) {
    if (!change.after) continue;
    const oid = await writeBlob({ ...options, change });
    records.push(Buffer.concat([Buffer.from(`${change.after.mode} ${oid}\t`), bytesOf(change.path), Buffer.of(0)]));
  }
  return Buffer.concat(records);
}

function identityEnv(identity: CommitIdentity, now: Date): Record<string, string> {
  const date = `@${Math.floor(now.getTime() / 1000)} +0000`;
  return {
    GIT_AUTHOR_NAME: identity.name,
    GIT_AUTHOR_EMAIL: identity.email,
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_NAME: identity.name,
    GIT_COMMITTER_EMAIL: identity.email,
    GIT_COMMITTER_DATE: date,
  };
}

/** Writes the commit (not yet on any branch) and returns its id. */
export async function writeTrialCommit(options: {
  gitDir: string;
  baseCommit: string;
  changes: readonly FileChange[];
  /** Where the changed files' bytes are (the workspace's own files). */
  sourceRoot: string;
  /** A private folder outside the repository for the temporary index. */
  scratchDir: string;
  message: string;
  identity: CommitIdentity;
  now: Date;
}): Promise<string> {
  const { gitDir } = options;
  const env = { GIT_INDEX_FILE: path.join(options.scratchDir, "index") };
  await runProjectGit({ gitDir, env, args: ["read-tree", options.baseCommit] });
  const records = await indexRecords(options);
  await runProjectGit({ gitDir, env, args: ["update-index", "-z", "--index-info"], input: records });
  const tree = await projectGitText({ gitDir, env, args: ["write-tree"] });
  return projectGitText({
    gitDir,
    env: identityEnv(options.identity, options.now),
    args: ["commit-tree", tree, "-p", options.baseCommit, "--no-gpg-sign", "-F", "-"],
    input: Buffer.from(options.message, "utf8"),
  });
}

/** Creates refs/heads/<name> at `commit`; CONFLICT (nothing changed) when the branch exists already. */
export async function createBranchRef(options: { gitDir: string; name: string; commit: string; reason: string }) {
  try {
    await runProjectGit({
      gitDir: options.gitDir,
      args: ["update-ref", "-m", options.reason, `refs/heads/${options.name}`, options.commit, ZERO_OID],
    });
  } catch (error) {
    if (error instanceof ProjectGitError && /exists|expected|unable to lock|cannot lock/i.test(error.stderr))
      throw new AppError({
        code: "CONFLICT",
        field: "trialId",
        message: `The branch ${options.name} already exists in the repository; nothing was changed. Delete it (git branch -D ${options.name}) or remove it from the branch history, then try again.`,
      });
    throw error;
  }
}

/** Where a branch points now, or null when it does not exist. */
export async function branchTip(options: { gitDir: string; name: string }): Promise<string | null> {
  try {
    const tip = await projectGitText({
      gitDir: options.gitDir,
      args: ["rev-parse", "--verify", "--quiet", `refs/heads/${options.name}`],
    });
    return /^[0-9a-f]{40}$/.test(tip) ? tip : null;
  } catch (error) {
    if (error instanceof ProjectGitError && error.exitCode === 1) return null;
    throw error;
  }
}

/** Deletes the branch only if it is still at `commit` (git checks and deletes atomically). */
export async function deleteBranchRef(options: { gitDir: string; name: string; commit: string }): Promise<void> {
  await runProjectGit({
    gitDir: options.gitDir,
    args: ["update-ref", "-d", `refs/heads/${options.name}`, options.commit],
  });
}
