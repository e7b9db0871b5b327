import type { Db } from "../../core/db/client";
import type { TrialFinishedData } from "../../../shared/event-catalog";
import type { TokenUsage } from "../../../shared/token-usage";
import type { TestResultView } from "../../../shared/verdict-summary";
import {
  ACTIVE_TRIAL_STATES,
  TERMINAL_TRIAL_STATES,
  type ActiveTrialState,
  type TrialState,
} from "../../../shared/vocabulary";
import { verdictColumns } from "./study-views";

/** A trial's rows as workers report on it and users stop or retry it. Every update is conditional, so a replayed event changes nothing. */

/** How an attempt ended (the `trial.finished` payload), with the per-test rows read from its evaluation file. */
export type TrialFinish = Omit<TrialFinishedData, "attempt" | "evaluationFile"> & { tests: TestResultView[] };

function usageColumns(usage: TokenUsage | null) {
  return usage
    ? {
        inputTokens: usage.inputTokens,
        cachedInputTokens: usage.cachedInputTokens,
        outputTokens: usage.outputTokens,
        reasoningTokens: usage.reasoningTokens,
      }
    : {};
}

/** Records a trial's end (only for its current attempt, and only once). */
async function trialFinished(
  db: Db,
  options: { trialId: string; attempt: number; at: Date; finish: TrialFinish },
): Promise<boolean> {
  const { finish, trialId } = options;
  return db.$transaction(async (tx) => {
    const { count } = await tx.trial.updateMany({
      where: { id: trialId, attempt: options.attempt, state: { notIn: [...TERMINAL_TRIAL_STATES] } },
      data: {
        state: finish.state,
        outcome: finish.outcome ?? null,
        step: "",
        error: finish.error,
        ...verdictColumns("verdict", finish.verdict),
        exitCode: finish.exitCode,
        agentSeconds: finish.agentSeconds,
        evalSeconds: finish.evalSeconds,
        ...usageColumns(finish.usage),
        commandsRun: finish.commandsRun,
        threadId: finish.threadId,
        harnessVersion: finish.harnessVersion,
        reportedModel: finish.reportedModel ?? null,
        committedImageId: finish.committedImageId,
        workspaceId: finish.workspaceId,
        diffFiles: finish.diff?.files ?? null,
        diffInsertions: finish.diff?.insertions ?? null,
        diffDeletions: finish.diff?.deletions ?? null,
        capturedChanges: finish.capturedChanges ? JSON.stringify(finish.capturedChanges) : null,
        testSteering: finish.testSteering ? JSON.stringify(finish.testSteering) : null,
        finishedAt: options.at,
      },
    });
    if (count === 0) return false;
    await tx.evaluationResult.deleteMany({ where: { trialId } });
    if (finish.tests.length > 0) {
      await tx.evaluationResult.createMany({
        data: finish.tests.map((test, position) => ({ trialId, position, ...test })),
      });
    }
    return true;
  });
}

export function createTrialWriteQueries(db: Db) {
  return {
    async trialStarted(options: { trialId: string; attempt: number; workerId: string | null; at: Date }) {
      const { count } = await db.trial.updateMany({
        where: { id: options.trialId, attempt: options.attempt, state: "queued" },
        data: { state: "preparing", step: "Starting", workerId: options.workerId, startedAt: options.at },
      });
      return count > 0;
    },

    async trialProgress(options: {
      trialId: string;
      attempt: number;
      state: ActiveTrialState;
      step: string;
      usage: TokenUsage | null;
      commandsRun: number | null;
    }): Promise<boolean> {
      const { count } = await db.trial.updateMany({
        where: { id: options.trialId, attempt: options.attempt, state: { in: [...ACTIVE_TRIAL_STATES] } },
        data: {
          state: options.state,
          step: options.step,
          ...usageColumns(options.usage),
          ...(options.commandsRun === null ? {} : { commandsRun: options.commandsRun }),
        },
      });
      return count > 0;
    },

    trialFinished: (options: { trialId: string; attempt: number; at: Date; finish: TrialFinish }) =>
      trialFinished(db, options),

    /** Puts an attempt's workspace or committed image on its row the moment they exist (current attempt only). */
    async trialArtefacts(options: {
      trialId: string;
      attempt: number;
      workspaceId?: string | undefined;
      workspaceKind?: "copy" | "overlay" | undefined;
      committedImageId?: string | undefined;
      imageWorker?: string | undefined;
      imageHost?: string | undefined;
    }): Promise<void> {
      const data = {
        ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}),
        ...(options.workspaceKind ? { workspaceKind: options.workspaceKind } : {}),
        ...(options.committedImageId
          ? {
              committedImageId: options.committedImageId,
              imageWorker: options.imageWorker ?? null,
              imageHost: options.imageHost ?? null,
            }
          : {}),
      };
      if (Object.keys(data).length === 0) return;
      await db.trial.updateMany({ where: { id: options.trialId, attempt: options.attempt }, data });
    },

    /** Ends trials that will not finish by themselves (stopped while queued, or their worker died). */
    async endTrials(options: {
      trialIds: string[];
      state: Extract<TrialState, "stopped" | "interrupted" | "error">;
      reason: string;
      at: Date;
      onlyStates: readonly TrialState[];
    }): Promise<string[]> {
      const ended: string[] = [];
      for (const trialId of options.trialIds) {
        const { count } = await db.trial.updateMany({
          where: { id: trialId, state: { in: [...options.onlyStates] } },
          data: {
            state: options.state,
            outcome: options.state,
            step: "",
            error: options.reason,
            finishedAt: options.at,
          },
        });
        if (count > 0) ended.push(trialId);
      }
      return ended;
    },
  };
}
