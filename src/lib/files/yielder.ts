/**
 * Long loops over many files run on synchronous fs calls: on a loaded machine they are several
 * times faster than one promise round trip through the thread pool per call. To keep the web
 * process responsive, such a loop asks `due()` and awaits `pause()` (one event-loop turn) about
 * every `budgetMs`.
 */
export function createYielder(budgetMs = 20) {
  let last = performance.now();
  return {
    due: () => performance.now() - last >= budgetMs,
    async pause(): Promise<void> {
      await new Promise<void>((resolve) => setImmediate(resolve));
      last = performance.now();
    },
  };
}
