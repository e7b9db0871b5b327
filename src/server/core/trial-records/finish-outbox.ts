import fs from "node:fs";
import path from "node:path";
import { trialFinishedEvent } from "../../../shared/event-catalog";
import type { EventInput } from "../events/event-stream";
import { dataDirPaths } from "../storage/data-dir";

/**
 * A trial's finish report, kept on disk before it is published: `<data dir>/trials/<id>/finished-<attempt>.json`.
 * If the `trial.finished` event never reaches the database (Redis down or restarted while the worker
 * published, the stream entry lost), the web process's sweeper finds the report here and publishes it
 * again instead of marking the trial interrupted: finished work is never discarded.
 */
const finishedSchema = trialFinishedEvent.omit({ v: true, at: true });
type FinishedInput = Extract<EventInput, { type: "trial.finished" }>;

function outboxFile(options: { dataDir: string; trialId: string; attempt: number }): string {
  return path.join(dataDirPaths(options.dataDir).trial(options.trialId), `finished-${options.attempt}.json`);
}

export function writeFinishReport(options: { dataDir: string; event: FinishedInput }): void {
  const file = outboxFile({
    dataDir: options.dataDir,
    trialId: options.event.trialId,
    attempt: options.event.data.attempt,
  });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(`${file}.tmp`, JSON.stringify(options.event));
  fs.renameSync(`${file}.tmp`, file);
}

/** The attempt's finish report and when it was written, or null when it has none (it never finished, or an older worker ran it). */
export function readFinishReport(options: {
  dataDir: string;
  trialId: string;
  attempt: number;
}): { event: FinishedInput; writtenAt: Date } | null {
  try {
    const file = outboxFile(options);
    const writtenAt = fs.statSync(file).mtime;
    const parsed = finishedSchema.safeParse(JSON.parse(fs.readFileSync(file, "utf8")));
    return parsed.success && parsed.data.trialId === options.trialId && parsed.data.data.attempt === options.attempt
      ? { event: parsed.data, writtenAt }
      : null;
  } catch {
    return null;
  }
}

/** Drops an attempt's report: a worker that gives up its running trials hands them to recovery instead. */
export function discardFinishReport(options: { dataDir: string; trialId: string; attempt: number }): void {
  fs.rmSync(outboxFile(options), { force: true });
}
