import fsp from "node:fs/promises";
import { AppError } from "../../core/errors/app-error";
import { trialLogPath } from "../../core/trial-records/trial-log";
import { attemptLogFile } from "./live-trial-log";
import type { StudyQueries } from "./studies.queries";

/**
 * A trial's log in the data dir: the tail for the page, the whole file for a download. While a worker on
 * another host runs the trial, that is the live copy the recorder keeps from its `trial.log` events
 * (live-trial-log.ts), until the worker's own log arrives with its results.
 */

interface TrialLogDeps {
  studies: Pick<StudyQueries, "trialLocation">;
  dataDir: string;
}

async function currentLogPath(deps: TrialLogDeps, trialId: string): Promise<{ file: string; attempt: number }> {
  const location = await deps.studies.trialLocation(trialId);
  if (!location) throw new AppError({ code: "NOT_FOUND", message: `No trial with id ${trialId}.` });
  const attempt = location.attempt;
  return {
    file:
      (await attemptLogFile({ dataDir: deps.dataDir, trialId, attempt })) ??
      trialLogPath({ dataDir: deps.dataDir, trialId, attempt }),
    attempt,
  };
}

/** The last `tailBytes` of a trial's current attempt's log ("" before it starts). */
export async function trialLogTail(
  deps: TrialLogDeps,
  options: { trialId: string; tailBytes: number },
): Promise<{ text: string; truncated: boolean; path: string }> {
  const { file } = await currentLogPath(deps, options.trialId);
  const handle = await fsp.open(file, "r").catch(() => null);
  if (!handle) return { text: "", truncated: false, path: file };
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, options.tailBytes);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return { text: buffer.toString("utf8"), truncated: size > length, path: file };
  } finally {
    await handle.close();
  }
}

/** The full log file of a trial's current attempt, or null before it has one. */
export async function trialLogFile(
  deps: TrialLogDeps,
  trialId: string,
): Promise<{ path: string; fileName: string } | null> {
  const { file, attempt } = await currentLogPath(deps, trialId);
  const exists = await fsp.access(file).then(
    () => true,
    () => false,
  );
  return exists ? { path: file, fileName: `trial-${trialId}-attempt-${attempt}.log` } : null;
}
