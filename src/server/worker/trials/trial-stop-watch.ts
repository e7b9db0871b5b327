import type { TrialContext } from "./trial-context";

/** Whether (and by whom) a trial was asked to stop, and the container to stop with it. */
export interface TrialStopWatch {
  /** The stop request's sentence, or null while none has arrived. */
  readonly stoppedBy: string | null;
  /** Asks once now (before any work starts). */
  checkNow(): Promise<string | null>;
  /** The container a stop must also stop (the evaluation's), or null. */
  setContainer(id: string | null): void;
  close(): void;
}

/**
 * Polls for a stop request every `pollMs` (1 s): the first one stops the agent run and any container the
 * trial is running, and is remembered so every later step is skipped.
 */
export function watchForStop(context: Pick<TrialContext, "deps" | "job" | "runId">): TrialStopWatch {
  const { deps, job, runId } = context;
  let stoppedBy: string | null = null;
  let container: string | null = null;
  const poll = setInterval(() => {
    void deps
      .stopRequested(job.trialId)
      .then((reason) => {
        if (!reason || stoppedBy) return;
        stoppedBy = reason;
        deps.stopAgent(runId, reason);
        if (container) void deps.runtime.stopContainer(container, { timeoutSeconds: 1 }).catch(() => undefined);
      })
      .catch(() => undefined);
  }, deps.pollMs ?? 1000);
  return {
    get stoppedBy() {
      return stoppedBy;
    },
    async checkNow() {
      stoppedBy = await deps.stopRequested(job.trialId);
      return stoppedBy;
    },
    setContainer(id) {
      container = id;
    },
    close() {
      clearInterval(poll);
    },
  };
}
