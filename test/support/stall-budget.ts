// How long may the event loop (or a request) stall while our work runs? 100 ms on a quiet machine. On a
// loaded one (two vCPUs shared with other builds) the operating system alone can pause a process for
// hundreds of milliseconds, which says nothing about our code. So the budget is measured: the same probe
// runs first for a control window with nothing of ours going on, and when that control already saw
// stalls over 30 ms the budget becomes 100 ms plus twice the control's worst. A synchronous hash of a
// large file (the bug these tests guard against) stalls for seconds and fails either way.

const QUIET_BUDGET_MS = 100;
const LOADED_CONTROL_MS = 30;

export interface StallBudget {
  /** The worst stall the control window saw. */
  controlMaxMs: number;
  /** What the measured window may reach. */
  budgetMs: number;
}

/** The budget for a window measured by `probe`, from a control window of `controlMs` of the same probe. */
export async function stallBudget(probe: (until: () => boolean) => Promise<number[]>, controlMs = 3_000) {
  const end = performance.now() + controlMs;
  const control = await probe(() => performance.now() >= end);
  const controlMaxMs = Math.max(0, ...control);
  const budgetMs = controlMaxMs > LOADED_CONTROL_MS ? QUIET_BUDGET_MS + 2 * controlMaxMs : QUIET_BUDGET_MS;
  return { controlMaxMs, budgetMs } satisfies StallBudget;
}

/** Gaps between ticks of a 5 ms timer until `until()` holds: how long the event loop was kept from it. */
export async function timerGaps(until: () => boolean): Promise<number[]> {
  const gaps: number[] = [];
  let last = performance.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const now = performance.now();
      gaps.push(now - last);
      last = now;
      if (until()) {
        clearInterval(timer);
        resolve();
      }
    }, 5);
  });
  return gaps;
}
