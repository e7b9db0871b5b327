import fs from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import { diffWorkspace, type DiffCaps } from "../../core/diffs/workspace-diff";
import { ProjectGitError, projectGitDir, projectGitText } from "../../core/git/project-git";
import { createKeyedLock } from "../../core/locks/keyed-lock";
import { readManifest } from "../../core/snapshots/manifest";
import { readWorkspace } from "../../core/workspaces/workspace-store";
import type { ProjectQueries } from "../projects/projects.queries";
import type { StudyView, TrialView } from "../../../shared/study-schemas";
import type { BranchCreateView, BranchPreviewView, ResultBranchView } from "../../../shared/branch-schemas";
import { trialName } from "../../../shared/domain-names";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import type { BranchQueries, ResultBranchRecord } from "./branches.queries";
import {
  branchTip,
  createBranchRef,
  DEFAULT_BRANCH_IDENTITY,
  deleteBranchRef,
  writeTrialCommit,
  type CommitIdentity,
} from "./branch-commit";
import { branchNameOf, commitMessageOf } from "./branch-naming";
import { listRemotes, pushBranch, shownUrl } from "./branch-push";
import { baseTree, checkBaseMatchesSnapshot } from "./branch-tree";

/**
 * "Apply as a branch": a finished trial's changes (the change set Apply would write: its workspace against
 * its snapshot) as one commit on a new branch of the project's repository, from the commit the study's
 * snapshot was taken on; pushed to a remote if asked; listed and removable. See branch-commit.ts for how
 * the user's work tree, index and HEAD stay untouched, and project-git.ts for what git may not run.
 */
export interface BranchServiceDeps {
  dataDir: string;
  projects: Pick<ProjectQueries, "findById">;
  studies: { get(studyId: string): Promise<StudyView> };
  branches: BranchQueries;
  /** Author and committer of the branches' commits (default: invariant-web <invariant-web@localhost>). */
  identity?: CommitIdentity;
  clock?: () => Date;
}

/** A plan needs hashes, not patch text. */
const NO_PATCHES: DiffCaps = { maxPatchBytesPerFile: 0, maxTotalPatchBytes: 0, maxTextBytes: 0 };

const refused = (message: string, code: "PRECONDITION_FAILED" | "CONFLICT" = "PRECONDITION_FAILED") =>
  new AppError({ code, field: "trialId", message });

async function locate(deps: BranchServiceDeps, trialId: string) {
  const studyId = await deps.branches.studyOfTrial(trialId);
  if (!studyId) throw new AppError({ code: "NOT_FOUND", field: "trialId", message: `No trial ${trialId}.` });
  const study = await deps.studies.get(studyId);
  const trial: TrialView | undefined = study.trials.find((candidate) => candidate.id === trialId);
  if (!trial) throw new AppError({ code: "NOT_FOUND", field: "trialId", message: `No trial ${trialId}.` });
  const project = await deps.projects.findById(study.projectId);
  if (!project)
    throw new AppError({
      code: "NOT_FOUND",
      field: "trialId",
      message: `The project of trial ${trialId} no longer exists.`,
    });
  return {
    study,
    trial,
    project,
    name: branchNameOf(study, trial),
    gitDir: projectGitDir(project.hostPath),
    baseCommit: await deps.branches.snapshotCommit(studyId),
  };
}

type Located = Awaited<ReturnType<typeof locate>>;

/** Why the trial cannot be applied as a branch, as the user should read it; null when it can. */
function problemOf(located: Located): { message: string; code: "PRECONDITION_FAILED" | "CONFLICT" } | null {
  const { trial, project, gitDir, baseCommit } = located;
  if (!isTerminalTrialState(trial.state))
    return { code: "CONFLICT", message: `This trial is ${trial.state}; apply it as a branch once it has finished.` };
  if (!trial.workspaceId)
    return {
      code: "CONFLICT",
      message: "This trial has no workspace (it ended before one was made): there is nothing to apply.",
    };
  if (!gitDir)
    return {
      code: "PRECONDITION_FAILED",
      message: `The project folder ${project.hostPath} is not a git repository (no .git at its top). Use Apply to project… instead, or run git init and commit it, then start a new study.`,
    };
  if (!baseCommit)
    return {
      code: "PRECONDITION_FAILED",
      message:
        "This study's snapshot has no commit: the project had no commit when the study started (or the study was made before invariant-web recorded commits). Commit the project, start a new study, and apply its trial as a branch; or use Apply to project… on this one.",
    };
  return null;
}

function viewOf(record: ResultBranchRecord, names: ReadonlyMap<string, string>): ResultBranchView {
  return {
    id: record.id,
    projectId: record.projectId,
    trialId: record.trialId,
    studyId: record.studyId,
    studyTitle: record.studyTitle,
    trialName: record.trialId ? (names.get(record.trialId) ?? null) : null,
    name: record.name,
    commit: record.commit,
    baseCommit: record.baseCommit,
    createdBy: record.createdBy,
    remote: record.remote,
    pushedAt: record.pushedAt?.toISOString() ?? null,
    removedAt: record.removedAt?.toISOString() ?? null,
    createdAt: record.createdAt.toISOString(),
  };
}

/** The commit the study stands on must still be a commit of this repository, with SHA-1 ids like the snapshot's. */
async function requireBase(gitDir: string, commit: string): Promise<void> {
  const format = await projectGitText({ gitDir, args: ["rev-parse", "--show-object-format"] }).catch(() => "sha1");
  if (format !== "sha1")
    throw refused(
      `This repository uses ${format} object ids; Apply as a branch supports sha1 repositories only. Use Apply to project… instead.`,
    );
  try {
    await projectGitText({ gitDir, args: ["cat-file", "-e", `${commit}^{commit}`] });
  } catch (error) {
    if (!(error instanceof ProjectGitError)) throw error;
    throw refused(
      `The study's commit ${commit.slice(0, 12)} is no longer in the repository (history rewritten, or another repository at this path). Use Apply to project… instead.`,
    );
  }
}

async function buildBranch(deps: BranchServiceDeps, located: Located, createdBy: string) {
  const { trial, study, name } = located;
  const gitDir = located.gitDir as string;
  const baseCommit = located.baseCommit as string;
  await requireBase(gitDir, baseCommit);
  const workspace = await readWorkspace({ dataDir: deps.dataDir, workspaceId: trial.workspaceId as string });
  const manifest = await readManifest({ dataDir: deps.dataDir, snapshotId: workspace.snapshotId });
  const diff = await diffWorkspace({
    dataDir: deps.dataDir,
    manifest,
    workspaceRoot: workspace.path,
    overlayLower: workspace.overlay?.lower ?? null,
    caps: NO_PATCHES,
  });
  if (diff.changes.length === 0) throw refused("This trial changed no files: there is nothing to commit on a branch.");
  if (await branchTip({ gitDir, name }))
    throw refused(
      `The branch ${name} already exists in the repository; nothing was changed. Delete it (git branch -D ${name}) or remove it from the branch history, then try again.`,
      "CONFLICT",
    );
  checkBaseMatchesSnapshot({
    changes: diff.changes,
    snapshot: new Map(manifest.entries.map((entry) => [entry.path, entry])),
    base: await baseTree({ gitDir, commit: baseCommit }),
    commit: baseCommit,
  });
  const configurationLabel = study.configurations.find((c) => c.id === trial.configurationId)?.label ?? "";
  const scratchDir = await fs.mkdtemp(path.join(os.tmpdir(), "invariant-branch-"));
  try {
    const commit = await writeTrialCommit({
      gitDir,
      baseCommit,
      changes: diff.changes,
      sourceRoot: workspace.path,
      scratchDir,
      message: commitMessageOf({ study, trial, configurationLabel }),
      identity: deps.identity ?? DEFAULT_BRANCH_IDENTITY,
      now: deps.clock?.() ?? new Date(),
    });
    await createBranchRef({
      gitDir,
      name,
      commit,
      reason: `invariant-web: ${trial.id} applied as a branch by ${createdBy}`,
    });
    return { commit, files: diff.changes.length };
  } finally {
    await fs.rm(scratchDir, { recursive: true, force: true });
  }
}

/** Deletes a branch from the repository while it is at the commit it was made at, then marks its row removed. */
async function removeBranch(deps: BranchServiceDeps, record: ResultBranchRecord): Promise<void> {
  if (record.removedAt)
    throw new AppError({ code: "CONFLICT", field: "branchId", message: `${record.name} was removed already.` });
  const project = await deps.projects.findById(record.projectId);
  const gitDir = project ? projectGitDir(project.hostPath) : null;
  if (!gitDir)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      field: "branchId",
      message: `The project folder is no longer a git repository, so ${record.name} cannot be deleted from it.`,
    });
  const moved = (tip: string) =>
    new AppError({
      code: "CONFLICT",
      field: "branchId",
      message: `${record.name} moved since it was made: it is at ${tip.slice(0, 12)} now, not ${record.commit.slice(0, 12)} (someone committed on it or reset it). It was left as it is; delete it yourself (git branch -D ${record.name}) if you mean to.`,
    });
  const tip = await branchTip({ gitDir, name: record.name });
  if (tip && tip !== record.commit) throw moved(tip);
  // already deleted by hand: nothing to do in the repository, the history says it is gone
  if (tip) {
    try {
      await deleteBranchRef({ gitDir, name: record.name, commit: record.commit });
    } catch (error) {
      if (!(error instanceof ProjectGitError)) throw error;
      throw moved((await branchTip({ gitDir, name: record.name })) ?? "(gone)");
    }
  }
  await deps.branches.markRemoved({ id: record.id, at: deps.clock?.() ?? new Date() });
}

export function createBranchService(deps: BranchServiceDeps) {
  const withProjectLock = createKeyedLock();
  const now = () => deps.clock?.() ?? new Date();

  async function trialNames(records: readonly ResultBranchRecord[]): Promise<Map<string, string>> {
    const names = new Map<string, string>();
    for (const studyId of new Set(records.flatMap((record) => (record.studyId ? [record.studyId] : []))))
      for (const trial of (await deps.studies.get(studyId).catch(() => null))?.trials ?? [])
        names.set(trial.id, trialName(trial));
    return names;
  }
  const view = async (record: ResultBranchRecord) => viewOf(record, await trialNames([record]));

  return {
    async preview(input: { trialId: string }): Promise<BranchPreviewView> {
      const located = await locate(deps, input.trialId);
      const existing = await deps.branches.current(input.trialId);
      let problem = problemOf(located)?.message ?? null;
      const remotes = located.gitDir ? await listRemotes(located.gitDir).catch(() => []) : [];
      if (!problem && located.gitDir && (await branchTip({ gitDir: located.gitDir, name: located.name })))
        problem = `The branch ${located.name} already exists in the repository. Remove it from the branch history (or git branch -D ${located.name}) to make it again.`;
      return {
        trialId: located.trial.id,
        projectId: located.project.id,
        name: located.name,
        baseCommit: located.baseCommit,
        problem,
        remotes: remotes.map((remote) => ({ name: remote.name, url: shownUrl(remote.url) })),
        existing: existing ? await view(existing) : null,
      };
    },

    async create(input: { trialId: string; remote?: string | null; createdBy: string }): Promise<BranchCreateView> {
      const located = await locate(deps, input.trialId);
      const problem = problemOf(located);
      if (problem) throw refused(problem.message, problem.code);
      const gitDir = located.gitDir as string;
      if (input.remote && !(await listRemotes(gitDir)).some((remote) => remote.name === input.remote))
        throw new AppError({
          code: "BAD_REQUEST",
          field: "remote",
          message: `The repository has no remote "${input.remote}". Choose one of git remote's, or leave the push out.`,
        });
      return withProjectLock(located.project.id, async () => {
        const built = await buildBranch(deps, located, input.createdBy);
        let record = await deps.branches.create({
          projectId: located.project.id,
          trialId: located.trial.id,
          name: located.name,
          commit: built.commit,
          baseCommit: located.baseCommit as string,
          createdBy: input.createdBy,
        });
        const push = input.remote ? await pushBranch({ gitDir, remote: input.remote, name: located.name }) : null;
        if (push?.ok) {
          await deps.branches.markPushed({ id: record.id, remote: push.remote, at: now() });
          record = (await deps.branches.find(record.id)) ?? record;
        }
        return { branch: await view(record), files: built.files, push };
      });
    },

    async list(input: { projectId: string; trialId?: string | undefined }): Promise<ResultBranchView[]> {
      const records = await deps.branches.list(input);
      const names = await trialNames(records);
      return records.map((record) => viewOf(record, names));
    },

    /** Deletes the branch from the repository if it is still where it was made; the row keeps removedAt. */
    async remove(input: { branchId: string; removedBy: string }): Promise<ResultBranchView> {
      const record = await deps.branches.find(input.branchId);
      if (!record)
        throw new AppError({ code: "NOT_FOUND", field: "branchId", message: `No branch ${input.branchId}.` });
      return withProjectLock(record.projectId, async () => {
        await removeBranch(deps, record);
        return view((await deps.branches.find(record.id)) ?? record);
      });
    },
  };
}

export type BranchService = ReturnType<typeof createBranchService>;
