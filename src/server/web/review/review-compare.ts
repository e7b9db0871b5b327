import { AppError } from "../../core/errors/app-error";
import type { BytePath } from "../../../lib/files/byte-path";
import type {
  CompareFileView,
  CompareTrialView,
  CompareView,
  ReviewChangeKind,
  ReviewCompareFileInput,
  ReviewSide,
} from "../../../shared/review-schemas";
import type { ReviewDiff } from "./diff-cache";
import { snapshotSide } from "./file-sides";
import { kindOf, languageOf, pathOfKey, reviewPath } from "./review-files";
import { configurationInfo, findTrial, trialDiff, trialSide, type ReviewContext } from "./review-trials";
import type { ReviewTrialRecord } from "./review.queries";

/** Trials of one study side by side: which trial changed which file, and any file of two of them. */

async function diffOrReason(
  context: ReviewContext,
  record: ReviewTrialRecord,
): Promise<{ diff: ReviewDiff | null; unavailable: string | null }> {
  try {
    return { diff: await trialDiff(context, record), unavailable: null };
  } catch (error) {
    if (error instanceof AppError && error.code !== "INTERNAL_SERVER_ERROR")
      return { diff: null, unavailable: error.message };
    throw error;
  }
}

export async function compareTrials(
  context: ReviewContext,
  input: { studyId: string; trialIds: string[] },
): Promise<CompareView> {
  const ids = [...new Set(input.trialIds)];
  const records = await context.reviews.trials(ids);
  for (const id of ids) {
    const record = records.find((candidate) => candidate.trial.id === id);
    if (!record || record.studyId !== input.studyId)
      throw new AppError({
        code: "NOT_FOUND",
        field: "trialIds",
        message: `Study ${input.studyId} has no trial ${id}.`,
      });
  }
  const diffs = await Promise.all(records.map((record) => diffOrReason(context, record)));
  const trials: CompareTrialView[] = records.map((record, index) => ({
    trialId: record.trial.id,
    label: configurationInfo(record).label,
    configuration: configurationInfo(record),
    verdict: record.trial.verdict,
    tokens: record.trial.tokens,
    agentSeconds: record.trial.agentSeconds,
    state: record.trial.state,
    workspaceId: record.trial.workspaceId,
    unavailable: diffs[index]?.unavailable ?? null,
  }));
  const paths = new Set<BytePath>();
  for (const { diff } of diffs) for (const change of diff?.changes ?? []) paths.add(change.path);
  const files = [...paths]
    .sort((a, b) => (a < b ? -1 : 1))
    .map((path) => {
      const changes: Record<string, ReviewChangeKind | null> = {};
      records.forEach((record, index) => {
        const change = diffs[index]?.diff?.byPath.get(path);
        changes[record.trial.id] = change ? kindOf(change) : null;
      });
      return { ...reviewPath(path), changes };
    });
  return { studyId: input.studyId, snapshotId: records[0]?.snapshotId ?? null, trials, files };
}

async function sideOf(
  context: ReviewContext,
  ref: ReviewCompareFileInput["left"],
  path: BytePath,
): Promise<{ side: ReviewSide; studyId: string }> {
  if ("trialId" in ref) {
    const record = await findTrial(context, ref.trialId);
    return { side: await trialSide(await trialDiff(context, record), path), studyId: record.studyId };
  }
  const study = await context.reviews.studySnapshot(ref.studyId);
  if (!study) throw new AppError({ code: "NOT_FOUND", message: `No study ${ref.studyId}.` });
  if (!study.snapshotId)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Study ${ref.studyId} has no snapshot: its snapshot was deleted or never taken.`,
    });
  const manifest = await context.cache.manifest(study.snapshotId);
  const entry = manifest.entries.find((candidate) => candidate.path === path);
  return { side: await snapshotSide({ dataDir: context.dataDir, manifest, entry }), studyId: ref.studyId };
}

/** One file of two trials (or of the snapshot and a trial). */
export async function compareFile(context: ReviewContext, input: ReviewCompareFileInput): Promise<CompareFileView> {
  const path = pathOfKey(input.pathKey);
  const [left, right] = await Promise.all([sideOf(context, input.left, path), sideOf(context, input.right, path)]);
  if (left.studyId !== right.studyId)
    throw new AppError({ code: "BAD_REQUEST", message: "Compare trials of the same study." });
  return { ...reviewPath(path), language: languageOf(path), left: left.side, right: right.side };
}
