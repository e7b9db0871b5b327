import os from "node:os";
import type { SupervisedProcess } from "../shared/system-health";
import { messageOf } from "../shared/error-message";

/** A running child the supervisor watches: its pid, and how it ended. */
export interface Supervisable {
  pid: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Waits before restart n (0-based): quick at first, then slower while it keeps failing. */
const BACKOFF_MS = [500, 1000, 2000, 5000, 10_000, 30_000];
/** A child that ran this long counts as healthy again: the backoff starts over. */
const STABLE_AFTER_MS = 60_000;
/** This many restarts in a row that did not stay up: the supervisor says it is failing (health and banner). */
const FAILING_AFTER = 2;

export interface Supervisor {
  status(): SupervisedProcess;
  /** The current child's pid (null while restarting). */
  pid(): number | null;
  /** Stops supervising (no more restarts); the caller stops the child itself. */
  release(): void;
}

function describeExit(exit: { code: number | null; signal: NodeJS.Signals | null }): string {
  return exit.signal ? `signal ${os.constants.signals[exit.signal] ?? exit.signal}` : `code ${String(exit.code)}`;
}

/**
 * Keeps a child of the launcher running: when it exits on its own it is started again after a backoff
 * (0.5 s, 1 s, 2 s, 5 s, 10 s, then every 30 s), each restart logged and counted. After FAILING_AFTER
 * restarts that did not stay up for a minute its status is `failing` (health degrades, the dashboard
 * shows a banner) and `onFailing` runs once; restarts go on at the slowest pace until one holds.
 */
export function supervise(options: {
  name: SupervisedProcess["name"];
  /** What it is called in log lines, e.g. "Redis". */
  label: string;
  first: Supervisable;
  start: () => Promise<Supervisable>;
  /** What the restart does, for the log line: "restarting from its append-only file". */
  restartNote: string;
  log: (message: string) => void;
  onFailing?: () => void;
  clock?: () => number;
}): Supervisor {
  const clock = options.clock ?? Date.now;
  let current: Supervisable | null = options.first;
  let released = false;
  let startedAt = clock();
  let failures = 0; // restarts in a row that did not hold
  const state: SupervisedProcess = {
    name: options.name,
    state: "running",
    restarts: 0,
    lastExit: null,
    lastRestartAt: null,
    lastError: null,
  };

  const watch = (child: Supervisable) => {
    void child.exited.then((exit) => {
      if (released) return;
      current = null;
      if (clock() - startedAt >= STABLE_AFTER_MS) failures = 0;
      state.lastExit = describeExit(exit);
      void restart();
    });
  };

  const restart = async (): Promise<void> => {
    while (!released) {
      const waitMs = BACKOFF_MS[Math.min(failures, BACKOFF_MS.length - 1)] ?? 30_000;
      failures += 1;
      if (failures > FAILING_AFTER && state.state !== "failing") {
        state.state = "failing";
        options.onFailing?.();
      } else if (state.state !== "failing") state.state = "restarting";
      options.log(
        `${options.label} exited (${state.lastExit ?? "?"}); ${options.restartNote} in ${waitMs / 1000} s (restart ${state.restarts + 1})`,
      );
      await new Promise((resolve) => setTimeout(resolve, waitMs));
      if (released) return;
      try {
        const child = await options.start();
        state.restarts += 1;
        state.lastRestartAt = new Date().toISOString();
        startedAt = clock();
        if (released) return;
        current = child;
        if (failures <= FAILING_AFTER) state.state = "running";
        state.lastError = null;
        options.log(`${options.label} restarted (pid ${child.pid}; ${state.restarts} restarts so far)`);
        watch(child);
        // a child that stays up clears the failing state
        setTimeout(() => {
          if (current === child && !released) {
            failures = 0;
            state.state = "running";
          }
        }, STABLE_AFTER_MS).unref();
        return;
      } catch (error) {
        state.lastError = messageOf(error);
        state.lastExit = `could not start: ${state.lastError}`;
      }
    }
  };

  watch(options.first);
  return {
    status: () => ({ ...state }),
    pid: () => current?.pid ?? null,
    release() {
      released = true;
      state.state = "stopped";
    },
  };
}
