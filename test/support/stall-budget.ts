import { expect } from "vitest";

// Did our work keep the event loop free while it ran? A synchronous hash of a large file (the bug these
// tests guard against) stalls the loop for most of the work's duration: seconds. On a loaded machine (two
// vCPUs shared with other builds) the operating system alone pauses a process for hundreds of
// milliseconds, and a control window measured before the work says nothing about the load during it. So
// the bound is relative to the work itself: the probe must have run throughout (at least 10 samples) and
// no stall may reach a quarter of the work's own duration. How short the stalls are on a quiet machine is
// a speed target, for a benchmark, not for a test.

/** Fails when `stallsMs` (what a probe measured while the work ran) show the work held the event loop. */
export function expectNoStall(options: { stallsMs: number[]; workMs: number }): void {
  expect(options.stallsMs.length).toBeGreaterThanOrEqual(10);
  expect(Math.max(...options.stallsMs)).toBeLessThan(options.workMs / 4);
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
