import fsp from "node:fs/promises";
import { z } from "zod";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { MAX_TEST_ROWS, testResultSchema } from "../../../shared/verdict-summary";
import { dataDirPaths } from "../../core/storage/data-dir";
import type { StudyQueries } from "./studies.queries";
import type { TrialFinish } from "./trial-write.queries";
import { messageOf } from "../../../shared/error-message";

const evaluationFileSchema = z.object({ verdict: z.object({ tests: z.array(testResultSchema) }) });

/**
 * Per-test rows a worker wrote next to the trial's log (in this data dir: a worker on another host
 * delivered them here before publishing); none when the file is missing or unreadable. The path is this
 * data dir's, from the ids, whatever path the event names.
 */
async function testsFrom(options: {
  named: string | null;
  dataDir: string;
  trialId: string;
  attempt: number;
  log: (message: string) => void;
}): Promise<TrialFinish["tests"]> {
  if (!options.named) return [];
  const file = dataDirPaths(options.dataDir).trialAttempt(options).evaluationFile;
  const log = options.log;
  try {
    const parsed = evaluationFileSchema.parse(JSON.parse(await fsp.readFile(file, "utf8")));
    return parsed.verdict.tests.slice(0, MAX_TEST_ROWS);
  } catch (error) {
    log(`studies: could not read per-test results from ${file}: ${messageOf(error)}`);
    return [];
  }
}

/**
 * Applies one recorded worker event to the study's rows. Every update is conditional (the current
 * attempt, a state that can still change), so a replayed or late event changes nothing.
 * Returns the study id when something changed.
 */
export async function recordStudyEvent(options: {
  studies: StudyQueries;
  event: InvariantEvent;
  now: Date;
  log: (message: string) => void;
  /** The web process's data dir (the per-test rows are read from it). */
  dataDir: string;
}): Promise<string | null> {
  const { event, studies } = options;
  const at = new Date(event.at);
  switch (event.type) {
    case "study.preflight-finished": {
      const { durationMs: _durationMs, ...outcome } = event.data;
      const changed = await studies.recordPreflight({ studyId: event.studyId, outcome, now: options.now });
      return changed ? event.studyId : null;
    }
    case "trial.started":
      return (await studies.trialStarted({
        trialId: event.trialId,
        attempt: event.data.attempt,
        workerId: event.workerId ?? null,
        at,
      }))
        ? event.studyId
        : null;
    case "trial.progress":
      await studies.trialProgress({
        trialId: event.trialId,
        attempt: event.data.attempt,
        state: event.data.state,
        step: event.data.step,
        usage: event.data.usage,
        commandsRun: event.data.commandsRun,
      });
      return null; // progress frees no slot
    case "trial.artefacts":
      // on the row at once, so an attempt that never finishes still shows (and its deletion finds) them
      await studies.trialArtefacts({ trialId: event.trialId, ...event.data });
      return null;
    case "trial.finished": {
      const { attempt, evaluationFile, ...finish } = event.data;
      const tests = await testsFrom({
        named: evaluationFile,
        dataDir: options.dataDir,
        trialId: event.trialId,
        attempt,
        log: options.log,
      });
      const changed = await studies.trialFinished({
        trialId: event.trialId,
        attempt,
        at,
        finish: { ...finish, tests },
      });
      return changed ? event.studyId : null;
    }
    default:
      return null;
  }
}
