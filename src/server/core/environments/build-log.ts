/** One `environment.log` message carries at most this much output. */
export const MAX_BUILD_LOG_BATCH_CHARS = 64 * 1024;
/** A build's log keeps at most this much output; a command that prints endlessly cannot flood Redis and SQLite. */
export const MAX_BUILD_LOG_CHARS = 16 * 1024 * 1024;

/**
 * A build's output on its way to `environment.log` events (the only log a build has): batched by the
 * caller's timer, at most MAX_BUILD_LOG_BATCH_CHARS a message (the rest of a batch is counted and said),
 * and at most MAX_BUILD_LOG_CHARS in all, after which a marker says the log stopped.
 */
export function createBuildLog(options: {
  publish: (text: string) => Promise<unknown>;
  maxBatchChars?: number;
  maxTotalChars?: number;
}) {
  const maxBatch = options.maxBatchChars ?? MAX_BUILD_LOG_BATCH_CHARS;
  const maxTotal = options.maxTotalChars ?? MAX_BUILD_LOG_CHARS;
  let pending = "";
  let droppedInBatch = 0;
  let total = 0;
  let stopped = false;
  let leftOut = 0;
  return {
    add(chunk: string): void {
      if (stopped) {
        leftOut += chunk.length;
        return;
      }
      const room = maxBatch - pending.length;
      if (chunk.length <= room) pending += chunk;
      else {
        pending += chunk.slice(0, Math.max(0, room));
        droppedInBatch += chunk.length - Math.max(0, room);
      }
    },
    /** Publishes what waits; `final` adds how much output the log left out, if any. */
    async flush(final = false): Promise<void> {
      let text = droppedInBatch > 0 ? `${pending}\n[… ${droppedInBatch} characters of output left out]\n` : pending;
      pending = "";
      droppedInBatch = 0;
      if (!stopped && total + text.length > maxTotal) {
        text = `${text.slice(0, Math.max(0, maxTotal - total))}\n[invariant-web: this build log reached its limit of ${sizeLabel(maxTotal)}; further output is left out]\n`;
        stopped = true;
      }
      if (final && leftOut > 0) text += `[invariant-web: ${leftOut} characters of output were left out of this log]\n`;
      if (final) leftOut = 0;
      if (!text) return;
      total += text.length;
      await options.publish(text);
    },
  };
}

function sizeLabel(chars: number): string {
  return chars >= 1024 * 1024 ? `${Math.round(chars / 1024 / 1024)} MiB` : `${Math.round(chars / 1024)} KiB`;
}
