import { z } from "zod";

/**
 * Inputs and views of snapshots, workspaces, diffs and apply plans, shared by server and browser.
 * Paths travel as { path, pathBytes? }: the UTF-8 text, plus the raw bytes in base64 when the file
 * name is not valid UTF-8 (Linux names are bytes).
 */
export interface PathTextView {
  path: string;
  pathBytes?: string;
}

const projectId = z.string().min(1, "Choose a project.");
const snapshotId = z.string().regex(/^[0-9a-f]{64}$/, "A snapshot id is 64 hex digits.");
const workspaceId = z.string().regex(/^ws-[0-9a-f]{24}$/, "A workspace id is ws- and 24 hex digits.");
const planHash = z.string().regex(/^[0-9a-f]{64}$/, "A plan hash is 64 hex digits; copy it from the preview.");

export const snapshotLimitsSchema = z
  .object({
    maxFiles: z.number().int().min(1, "At least 1 file.").max(10_000_000, "At most 10,000,000 files."),
    maxTotalBytes: z
      .number()
      .int()
      .min(1)
      .max(1024 ** 4, "At most 1 TiB."),
    maxFileBytes: z
      .number()
      .int()
      .min(1)
      .max(64 * 1024 ** 3, "At most 64 GiB per file."),
  })
  .partial();
export type SnapshotLimitsInput = z.infer<typeof snapshotLimitsSchema>;

export const createSnapshotInputSchema = z.object({ projectId, limits: snapshotLimitsSchema.optional() });
export const projectSnapshotsInputSchema = z.object({ projectId });
export const snapshotIdInputSchema = z.object({ snapshotId });
export const workspaceIdInputSchema = z.object({ workspaceId });
export const applyRunInputSchema = z.object({ workspaceId, planHash });
export const applyHistoryInputSchema = z.object({ projectId });
const trialId = z.string().min(1, "Choose a trial.").max(100);
export const applyTrialInputSchema = z.object({ trialId });
export const applyTrialRunInputSchema = z.object({ trialId, planHash });
export const applyUndoInputSchema = z.object({ recordId: z.string().min(1, "Choose an apply to undo.").max(100) });
export const appliedTrialsInputSchema = z.object({ studyId: z.string().min(1, "Choose a study.").max(100) });

export type SpecialFileKind = "fifo" | "socket" | "block-device" | "character-device" | "unknown";

export interface SnapshotView {
  id: string;
  projectId: string;
  fileCount: number;
  bytes: number;
  /** The single commit a workspace has checked out. */
  commit: string;
  /** Special files left out. */
  skipped: (PathTextView & { kind: SpecialFileKind })[];
  /** Always-excluded hits per category, and the secrets left out by path. */
  excluded: { counts: Record<string, number>; secrets: PathTextView[]; ignoredByGitignore: number };
  createdAt: string;
  /** This call found an identical snapshot and reused it. */
  reused: boolean;
}

/** A snapshot as listed: the database row, without reading its manifest. */
export interface SnapshotSummaryView {
  id: string;
  projectId: string;
  fileCount: number;
  bytes: number;
  skippedCount: number;
  createdAt: string;
}

export interface WorkspaceView {
  id: string;
  projectId: string;
  snapshotId: string;
  /** Host path of the writable copy. */
  path: string;
  createdAt: string;
}

/** One side of a change to a path; `TPath` is how paths travel (raw bytes on the server, PathTextView in views). */
export interface FileStateOf<TPath> {
  type: "file" | "symlink";
  mode: string;
  size: number;
  sha256: string;
  target?: TPath;
}
export type FileStateView = FileStateOf<PathTextView>;

/** What changed about one path, declared once for the server's diff and the view of it. */
export interface FileChangeOf<TState> {
  status: "added" | "modified" | "deleted";
  before: TState | null;
  after: TState | null;
  contentChanged: boolean;
  modeChanged: boolean;
  /** Between a file and a symlink. */
  typeChanged: boolean;
  binary: boolean;
  insertions: number;
  deletions: number;
  /** Unified patch; null when the diff's total size cap was reached before this file. */
  patch: string | null;
  patchTruncated: boolean;
}
export interface FileChangeView extends PathTextView, FileChangeOf<FileStateView> {}

export interface DiffTotalsView {
  files: number;
  added: number;
  modified: number;
  deleted: number;
  binary: number;
  modeChanges: number;
  insertions: number;
  deletions: number;
}

export interface WorkspaceDiffView {
  workspaceId: string;
  snapshotId: string;
  changes: FileChangeView[];
  totals: DiffTotalsView;
  skipped: (PathTextView & { kind: SpecialFileKind })[];
  truncated: boolean;
}

export type PlanAction = "create" | "modify" | "delete";

export interface PlanStepView extends PathTextView {
  action: PlanAction;
  before: FileStateView | null;
  after: FileStateView | null;
}

/** What is at a path in the project now (a conflict shows it beside the state the plan expected). */
export interface CurrentFileView {
  exists: boolean;
  type: "file" | "symlink" | "directory" | "other" | null;
  mode: string | null;
  size: number | null;
  sha256: string | null;
}

export interface ConflictView extends PathTextView {
  reason: string;
  message: string;
  /** The path's state in the project when the conflict was found; absent when it was not read (e.g. a parent is in the way). */
  current?: CurrentFileView;
}

export interface ApplyPreviewView {
  projectId: string;
  snapshotId: string;
  workspaceId: string;
  /** Confirm this hash with apply.run. */
  planHash: string;
  steps: PlanStepView[];
  conflicts: ConflictView[];
  totals: DiffTotalsView;
  /** Set when the workspace is a trial's (applies.previewTrial). */
  trialId?: string;
  /** applies.previewTrial: the trial's latest apply when it is still in place (then the plan's conflicts are that apply). */
  applied?: AppliedTrialView | null;
}

/** A trial's latest apply that is still in place: every file it touched is as it left it, none undone. */
export interface AppliedTrialView {
  trialId: string;
  recordId: string;
  projectId: string;
  appliedAt: string;
  appliedBy: string;
  files: number;
  /** Whether applies.undo takes it now (false: a later apply of the project must be undone first). */
  undoable: boolean;
}

/** `undone`: an undo record that restored the project as it was before the apply it names in `undoOf`. */
export type ApplyOutcome = "applied" | "refused" | "rolled-back" | "failed" | "undone";

export interface ApplyRecordView {
  id: string;
  projectId: string;
  snapshotId: string | null;
  workspaceId: string | null;
  planHash: string | null;
  appliedBy: string;
  outcome: ApplyOutcome;
  files: (PathTextView & { action: PlanAction })[];
  conflicts: ConflictView[];
  error: string | null;
  createdAt: string;
  /** The trial whose workspace was applied, with its study and configuration when they still exist. */
  trialId: string | null;
  studyId: string | null;
  studyTitle: string | null;
  configurationLabel: string | null;
  /** For an undo attempt (outcome undone, refused, rolled-back or failed): the applied record it reverses. */
  undoOf: string | null;
  /** For an applied record: the undo record that reversed it, or null. */
  undoneBy: string | null;
  /** Whether applies.undo may reverse this record now: the project's most recent applied record not yet undone, with its backup kept. */
  undoable: boolean;
}
