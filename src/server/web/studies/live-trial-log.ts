import fsp from "node:fs/promises";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import { dataDirPaths } from "../../core/storage/data-dir";
import { MAX_TRIAL_LOG_BYTES, NOTE_RESERVE_BYTES } from "../../core/trial-records/trial-log";
import type { StudyQueries } from "./studies.queries";

/** The live copy holds at most what a worker's own log does (its output cap plus the notes' reserve). */
export const MAX_LIVE_LOG_BYTES = MAX_TRIAL_LOG_BYTES + NOTE_RESERVE_BYTES;
/** Trial ids are the database's (cuid): nothing else names a folder here. */
const TRIAL_ID = /^[A-Za-z0-9_-]{1,100}$/;

const exists = (file: string) =>
  fsp.lstat(file).then(
    (stat) => stat.isFile(),
    () => false,
  );

interface LiveLogDeps {
  dataDir: string;
  studies: Pick<StudyQueries, "trialLocation">;
  maxBytes?: number;
}

/**
 * Appends one `trial.log` chunk to the attempt's live copy when this data dir has no `trial.log` of that
 * attempt, i.e. when a worker on another host runs it: a worker sharing this data dir creates its log before
 * it publishes a line (so its lines are never written twice), and a remote one's complete log replaces the
 * copy when its results are delivered (from then on late chunks are left out). Only for the trial's current
 * attempt while it runs, on the worker the trial records (before trial.started is recorded: any), in that
 * attempt's folder, and bounded like a worker's log.
 */
async function appendChunk(deps: LiveLogDeps, event: Extract<InvariantEvent, { type: "trial.log" }>): Promise<void> {
  const { trialId } = event;
  const { attempt, text } = event.data;
  if (!TRIAL_ID.test(trialId) || !Number.isInteger(attempt) || attempt < 1 || !text) return;
  const files = dataDirPaths(deps.dataDir).trialAttempt({ trialId, attempt });
  if (await exists(files.log)) return;
  const trial = await deps.studies.trialLocation(trialId);
  if (!trial || trial.attempt !== attempt || isTerminalTrialState(trial.state)) return;
  if (trial.state !== "queued" && trial.workerId !== null && trial.workerId !== event.workerId) return;
  const maxBytes = deps.maxBytes ?? MAX_LIVE_LOG_BYTES;
  await fsp.mkdir(files.dir, { recursive: true, mode: 0o700 });
  const size = (await fsp.stat(files.liveLog).catch(() => null))?.size ?? 0;
  if (size >= maxBytes) return;
  const bytes = Buffer.from(text);
  const fits = bytes.length <= maxBytes - size;
  const chunk = fits
    ? bytes
    : Buffer.concat([
        Buffer.from(bytes.subarray(0, maxBytes - size).toString("utf8")),
        Buffer.from(
          `\n[invariant-web: the live copy of this log reached its limit of ${Math.round(maxBytes / 1024 / 1024)} MiB; the worker's whole log replaces it when the trial ends]\n`,
        ),
      ]);
  await fsp.appendFile(files.liveLog, chunk, { mode: 0o600 });
}

/**
 * The recorder's part in a remote trial's log (see appendChunk): chunks go to the live copy as they are
 * recorded (once: a replayed entry appends nothing), and when the attempt finishes with the worker's log
 * delivered, the copy goes. A remote attempt that ended without delivering (its worker died) keeps the copy,
 * which then is its log.
 */
export async function recordLiveTrialLog(
  deps: LiveLogDeps,
  options: { event: InvariantEvent; firstTime: boolean },
): Promise<void> {
  const { event } = options;
  if (event.type === "trial.log") {
    if (options.firstTime) await appendChunk(deps, event);
  } else if (event.type === "trial.finished" && TRIAL_ID.test(event.trialId)) {
    const files = dataDirPaths(deps.dataDir).trialAttempt({ trialId: event.trialId, attempt: event.data.attempt });
    if (await exists(files.log)) await fsp.rm(files.liveLog, { force: true });
  }
}

/** The log file of an attempt as this data dir has it: the worker's `trial.log`, else the live copy, else none. */
export async function attemptLogFile(options: {
  dataDir: string;
  trialId: string;
  attempt: number;
}): Promise<string | null> {
  const files = dataDirPaths(options.dataDir).trialAttempt(options);
  if (await exists(files.log)) return files.log;
  return (await exists(files.liveLog)) ? files.liveLog : null;
}
