import fs from "node:fs";
import path from "node:path";
import { dataDirPaths } from "../storage/data-dir";

/** The full log of one attempt of a trial (see data-dir.ts). */
export function trialLogPath(options: { dataDir: string; trialId: string; attempt: number }): string {
  return dataDirPaths(options.dataDir).trialAttempt(options).log;
}

export interface TrialLog {
  /** Output (the agent's, the test command's): dropped once the log is full. */
  write(text: string): void;
  /** The product's own lines (steps, the outcome): written even when the log is full, within a reserve. */
  writeNote(text: string): void;
  /** Publishes what is buffered now. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const MAX_EVENT_CHARS = 16 * 1024;
/** A trial log keeps at most this much output; a command that prints endlessly cannot fill the disk. */
export const MAX_TRIAL_LOG_BYTES = 32 * 1024 * 1024;
/** Room kept for the product's notes after the output filled the log. */
export const NOTE_RESERVE_BYTES = 1024 * 1024;

/** The live tail's batch: at most MAX_EVENT_CHARS, saying how much it left out. */
function createTail(publish: (text: string) => Promise<unknown>) {
  let pending = "";
  let dropped = 0;
  return {
    add(text: string) {
      const room = MAX_EVENT_CHARS - pending.length;
      if (text.length <= room) pending += text;
      else {
        pending += text.slice(0, Math.max(0, room));
        dropped += text.length - Math.max(0, room);
      }
    },
    async flush() {
      if (!pending && dropped === 0) return;
      const text = dropped > 0 ? `${pending}[… ${dropped} characters more in the full log]\n` : pending;
      pending = "";
      dropped = 0;
      await publish(text);
    },
  };
}

/**
 * A trial's log: every line goes to the file at once (the downloadable log), and is published in
 * batches of at most 250 ms as `trial.log` events (the live tail, at most 16 KiB a batch). Output stops
 * at `maxBytes` (32 MiB): a marker says so, further output is counted and left out, and the product's
 * notes (steps, the outcome line) still get in.
 */
export function openTrialLog(options: {
  file: string;
  publish: (text: string) => Promise<unknown>;
  intervalMs?: number;
  maxBytes?: number;
}): TrialLog {
  const maxBytes = options.maxBytes ?? MAX_TRIAL_LOG_BYTES;
  fs.mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(options.file, "a", 0o600);
  let written = fs.fstatSync(fd).size;
  let leftOut = 0;
  let closed = false;
  const tail = createTail(options.publish);
  const append = (text: string) => {
    written += fs.writeSync(fd, text);
    tail.add(text);
  };
  const timer = setInterval(() => void tail.flush().catch(() => undefined), options.intervalMs ?? 250);
  return {
    write(text) {
      if (closed || !text) return;
      const size = Buffer.byteLength(text);
      if (leftOut > 0) {
        leftOut += size;
        return;
      }
      if (written + size <= maxBytes) return append(text);
      const fits = Buffer.from(text)
        .subarray(0, Math.max(0, maxBytes - written))
        .toString("utf8");
      if (fits) append(fits);
      leftOut += size - Buffer.byteLength(fits);
      append(
        `\n[invariant-web: this log reached its limit of ${Math.round(maxBytes / 1024 / 1024)} MiB; further output is left out]\n`,
      );
    },
    writeNote(text) {
      if (closed || !text || written + Buffer.byteLength(text) > maxBytes + NOTE_RESERVE_BYTES) return;
      append(text);
    },
    flush: () => tail.flush(),
    async close() {
      if (closed) return;
      clearInterval(timer);
      if (leftOut > 0) append(`[invariant-web: ${leftOut} bytes of output were left out of this log]\n`);
      await tail.flush().catch(() => undefined);
      closed = true;
      fs.closeSync(fd);
    },
  };
}
