import { sideRoot } from "./diff-cache";
import { AppError } from "../../core/errors/app-error";
import { baseName, displayPath } from "../../../lib/files/byte-path";
import { sideBytes } from "./file-sides";
import { pathOfKey } from "./review-files";
import { configurationInfo, findTrial, isReviewable, trialDiff, type ReviewContext } from "./review-trials";
import { trialPatch } from "./trial-patch";
import { findSession, sessionDiff, subjectDiff, subjectWord } from "./review-sessions";
import type { ReviewSubject } from "../../../shared/review-schemas";

/** A download: its file name, type, size when known, and its bytes as they are produced. */
export interface ReviewDownload {
  fileName: string;
  contentType: string;
  size: number | null;
  chunks: AsyncIterable<string | Buffer> | Iterable<string | Buffer>;
}

/** The whole trial as one git patch (trial-patch.ts). */
export async function patchDownload(context: ReviewContext, input: { trialId: string }): Promise<ReviewDownload> {
  const record = await findTrial(context, input.trialId);
  const diff = await trialDiff(context, record);
  const { trial } = record;
  const preamble = [
    `invariant-web trial ${trial.id} (attempt ${trial.attempt}), ${configurationInfo(record).label}, ${trial.state}`,
    `snapshot ${diff.snapshotId}, workspace ${diff.workspaceId}: ${diff.changes.length} changed file(s)`,
    "Apply on a copy of the snapshot with: git apply <this file>",
  ];
  return {
    fileName: `trial-${trial.id}-attempt-${trial.attempt}.patch`,
    contentType: "text/x-diff; charset=utf-8",
    size: null,
    chunks: trialPatch({ dataDir: context.dataDir, diff, preamble }),
  };
}

/** The raw bytes of one side of a file: before = the snapshot's, after = the workspace's (a trial's or a session's). */
export async function fileBytesDownload(
  context: ReviewContext,
  input: ReviewSubject & { pathKey: string; side: "before" | "after" },
): Promise<ReviewDownload> {
  const path = pathOfKey(input.pathKey);
  const diff = await subjectDiff(context, input);
  let bytes: Awaited<ReturnType<typeof sideBytes>> = null;
  if (isReviewable(diff, path))
    bytes =
      input.side === "before"
        ? await sideBytes({
            from: "snapshot",
            dataDir: context.dataDir,
            manifest: diff.manifest,
            entry: diff.tracked.get(path),
          })
        : await sideBytes({ from: "workspace", root: sideRoot(diff, path), path });
  if (!bytes)
    throw new AppError({
      code: "NOT_FOUND",
      message: `${displayPath(path)} does not exist ${input.side === "before" ? "in the snapshot" : `in the ${subjectWord(input)}'s workspace`}.`,
    });
  return {
    fileName: `${input.side}-${displayPath(baseName(path))}`,
    contentType: "application/octet-stream",
    size: bytes.size,
    chunks: bytes.chunks,
  };
}

/** The whole session as one git patch (trial-patch.ts), to apply on a copy of its snapshot. */
export async function sessionPatchDownload(
  context: ReviewContext,
  input: { sessionId: string },
): Promise<ReviewDownload> {
  const record = await findSession(context, input.sessionId);
  const diff = await sessionDiff(context, record);
  const preamble = [
    `invariant-web session ${record.id} (private copy), ${record.state}`,
    `snapshot ${diff.snapshotId}, workspace ${diff.workspaceId}: ${diff.changes.length} changed file(s)`,
    "Apply on a copy of the snapshot with: git apply <this file>",
  ];
  return {
    fileName: `session-${record.id}.patch`,
    contentType: "text/x-diff; charset=utf-8",
    size: null,
    chunks: trialPatch({ dataDir: context.dataDir, diff, preamble }),
  };
}
