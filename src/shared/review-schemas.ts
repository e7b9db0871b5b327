import { z } from "zod";
import type { Tokens } from "./token-usage";
import type { VerdictView } from "./verdict-summary";
import type { HarnessKind, ReasoningEffort, TrialState } from "./vocabulary";
import type { SpecialFileKind } from "./snapshot-schemas";
import type { TestSteeringChange } from "./test-steering";

/**
 * Inputs and views of the trial review (tRPC `review.*` and the patch / file downloads), shared by
 * server and browser. A path travels as `path` (display text) and `pathKey`: the base64url of the
 * file name's raw bytes, so a name that is not valid UTF-8 round-trips exactly.
 */
export const REVIEW_PAGE_DEFAULT = 500;
export const REVIEW_PAGE_MAX = 2000;
/** Text is returned for UTF-8 files up to this size; bigger ones show sizes and hashes. */
export const REVIEW_TEXT_MAX_BYTES = 1024 * 1024;

const trialId = z.string().min(1, "Choose a trial.");
export const pathKeySchema = z
  .string()
  .min(1, "A path key is required.")
  .max(8192)
  .regex(/^[A-Za-z0-9_-]+$/, "A path key is the base64url of the path's bytes.");

export const reviewTrialInputSchema = z.object({ trialId });
/**
 * What a review reads the changes of: a trial's workspace, or a private-copy session's (its files, file
 * diffs, patch and side downloads are the same review, /sessions/<id>/review).
 */
export const reviewSubjectSchema = z.union([
  z.object({ trialId }),
  z.object({ sessionId: z.string().min(1, "Choose a session.").max(100) }),
]);
export type ReviewSubject = z.infer<typeof reviewSubjectSchema>;
const reviewPageSchema = z.object({
  cursor: z.int().min(0).optional(),
  limit: z.int().min(1).max(REVIEW_PAGE_MAX, `At most ${REVIEW_PAGE_MAX} files per page.`).default(REVIEW_PAGE_DEFAULT),
  /**
   * The file the page opens first (a path key, or `true` for the first changed file): the first page
   * then carries its diff as `opened`, so the page's first diff needs no second round trip.
   */
  opened: z.union([pathKeySchema, z.literal(true)]).optional(),
});
/**
 * What a trial's changes are shown against: its study's snapshot (what Apply would write; the default), or
 * for a follow-up attempt its parent trial's result (only what the follow-up changed).
 */
export const reviewAgainstSchema = z.enum(["snapshot", "parent"]);
export type ReviewAgainst = z.infer<typeof reviewAgainstSchema>;
const againstSchema = z.object({ against: reviewAgainstSchema.optional() });
export const reviewFilesInputSchema = z.intersection(
  reviewSubjectSchema,
  z.intersection(reviewPageSchema, againstSchema),
);
export const reviewFileInputSchema = z.intersection(
  reviewSubjectSchema,
  z.object({ pathKey: pathKeySchema, against: reviewAgainstSchema.optional() }),
);
export const reviewTranscriptInputSchema = z.object({ trialId, attempt: z.int().positive().optional() });
export const reviewCompareInputSchema = z.object({
  studyId: z.string().min(1),
  trialIds: z
    .array(trialId)
    .min(2, "Choose at least two trials to compare.")
    .max(8, "Compare at most eight trials at once."),
});
export const reviewCompareFileInputSchema = z.object({
  pathKey: pathKeySchema,
  left: z.union([z.object({ trialId }), z.object({ snapshot: z.literal(true), studyId: z.string().min(1) })]),
  right: z.object({ trialId }),
});
export const reviewFileSideSchema = z.enum(["before", "after"]);

export type ReviewFilesInput = z.input<typeof reviewFilesInputSchema>;
export type ReviewCompareFileInput = z.infer<typeof reviewCompareFileInputSchema>;

/** What happened to a path: added / modified / deleted content, only a mode change, a symlink, binary content, or a file ↔ symlink change. */
export type ReviewChangeKind = "added" | "modified" | "deleted" | "mode" | "symlink" | "binary" | "type-change";

export interface ReviewPath {
  path: string;
  pathKey: string;
}

export interface ReviewFileState {
  type: "file" | "symlink";
  size: number;
  sha256: string;
  mode: string;
}

export interface ReviewFileItem extends ReviewPath {
  kind: ReviewChangeKind;
  status: "added" | "modified" | "deleted";
  binary: boolean;
  modeChanged: boolean;
  insertions: number;
  deletions: number;
  /** False when a side is too big (over 1 MiB) or changed while read: no line counts. */
  linesCounted: boolean;
  before: ReviewFileState | null;
  after: ReviewFileState | null;
}

export interface ReviewTotals {
  files: number;
  insertions: number;
  deletions: number;
}

export interface ReviewFilesView {
  items: ReviewFileItem[];
  nextCursor: number | null;
  total: number;
  /** Special files (FIFOs, sockets, devices) in the workspace, left out of the diff. */
  skipped: (ReviewPath & { kind: SpecialFileKind })[];
  /**
   * New paths the ignore rules or the always-excluded list leave out of the diff (a directory once; the
   * root .git not listed), and so out of the evaluation too: the first 200, and how many in all.
   */
  leftOut: ReviewPath[];
  leftOutTotal: number;
  /** Some file got no line counts (too big to diff as text). */
  truncated: boolean;
  /** The first page's answer to `opened`: that file's diff, null when it cannot be shown (no change, unknown path). */
  opened?: ReviewFileView | null;
}

export interface ReviewSide {
  exists: boolean;
  size: number | null;
  sha256: string | null;
  mode: string | null;
  /** The content, for UTF-8 files up to 1 MiB. */
  text: string | null;
  reason: null | "binary" | "too-large" | "symlink";
  /** A symlink's target (display text). */
  target: string | null;
}

export interface ReviewFileView extends ReviewPath {
  language: string;
  before: ReviewSide;
  after: ReviewSide;
}

export interface ReviewConfigurationInfo {
  /** The configuration's number in the study (1, 2, …). */
  number: number;
  harness: HarnessKind;
  model: string;
  reasoningEffort: ReasoningEffort;
  /** Which repeat of its configuration this trial is. */
  repeat: number;
  /** The trial's title (domain-names.ts trialTitle), e.g. "Trial 1.2 · gpt-5 · low". */
  label: string;
}

export interface ReviewSummaryView {
  trialId: string;
  studyId: string;
  projectId: string;
  attempt: number;
  state: TrialState;
  step: string;
  workspaceId: string | null;
  snapshotId: string | null;
  configuration: ReviewConfigurationInfo;
  verdict: VerdictView | null;
  tokens: Tokens;
  agentSeconds: number | null;
  /** null when the trial has no workspace (and the worker recorded no diff). */
  totals: ReviewTotals | null;
  /**
   * The changed files that steer how tests run (src/shared/test-steering.ts), recorded with the verdict:
   * the review page warns above the diff; null: not checked.
   */
  testSteering: TestSteeringChange[] | null;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
  /** The trial has not finished: its files and transcript may still change. */
  live: boolean;
  /** For a follow-up attempt (review feedback sent back to the agent): the trial it continued; else null. */
  parent: { id: string; name: string } | null;
  /** The follow-ups of this trial, oldest first. */
  followUps: { id: string; name: string; state: TrialState; verdict: VerdictView | null }[];
}

export type TranscriptItem = { at: string } & (
  | { kind: "start"; attempt: number; workspaceId: string | null }
  | { kind: "step"; state: TrialState; step: string }
  | { kind: "message"; text: string }
  | { kind: "reasoning"; text: string }
  | {
      kind: "command";
      itemId: string;
      command: string;
      status: "running" | "completed" | "failed" | "declined";
      exitCode: number | null;
      /** The end of the output (the last 4,096 characters). */
      outputTail: string;
      /** The whole output when it fits in the tail, else null. */
      output: string | null;
      outputChars: number;
      outputTruncated: boolean;
    }
  | { kind: "file-change"; status: string; changes: { path: string; kind: "add" | "delete" | "update" }[] }
  | { kind: "usage"; tokens: Tokens }
  | { kind: "error"; message: string; fatal: boolean }
  | {
      kind: "finish";
      state: TrialState;
      verdict: VerdictView | null;
      agentSeconds: number | null;
      error: string | null;
    }
);

export interface TranscriptView {
  trialId: string;
  attempt: number;
  items: TranscriptItem[];
  live: boolean;
}

export interface CompareTrialView {
  trialId: string;
  label: string;
  configuration: ReviewConfigurationInfo;
  verdict: VerdictView | null;
  tokens: Tokens;
  agentSeconds: number | null;
  state: TrialState;
  workspaceId: string | null;
  /** Why this trial's changes are not in the matrix (no workspace yet, workspace removed), else null. */
  unavailable: string | null;
}

export interface CompareView {
  studyId: string;
  snapshotId: string | null;
  trials: CompareTrialView[];
  files: (ReviewPath & { changes: Record<string, ReviewChangeKind | null> })[];
}

export interface CompareFileView extends ReviewPath {
  language: string;
  left: ReviewSide;
  right: ReviewSide;
}
