import fs from "node:fs";
import path from "node:path";
import { dataDirPaths } from "../storage/data-dir";

/** The full log of one attempt of a trial (see data-dir.ts). */
export function trialLogPath(options: { dataDir: string; trialId: string; attempt: number }): string {
  return dataDirPaths(options.dataDir).trialAttempt(options).log;
}

export interface TrialLog {
  write(text: string): void;
  /** Publishes what is buffered now. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

const MAX_EVENT_CHARS = 16 * 1024;

/**
 * A trial's log: every line goes to the file at once (the full log, downloadable), and is published in
 * batches of at most 250 ms as `trial.log` events (the live tail). A chatty command cannot flood the
 * event stream: a batch keeps at most 16 KiB and says how much it left out; the file keeps everything.
 */
export function openTrialLog(options: {
  file: string;
  publish: (text: string) => Promise<unknown>;
  intervalMs?: number;
}): TrialLog {
  fs.mkdirSync(path.dirname(options.file), { recursive: true, mode: 0o700 });
  const fd = fs.openSync(options.file, "a", 0o600);
  let pending = "";
  let dropped = 0;
  let closed = false;
  const flush = async () => {
    if (!pending && dropped === 0) return;
    const text = dropped > 0 ? `${pending}[… ${dropped} characters more in the full log]\n` : pending;
    pending = "";
    dropped = 0;
    await options.publish(text);
  };
  const timer = setInterval(() => void flush().catch(() => undefined), options.intervalMs ?? 250);
  return {
    write(text) {
      if (closed || !text) return;
      fs.writeSync(fd, text);
      const room = MAX_EVENT_CHARS - pending.length;
      if (text.length <= room) pending += text;
      else {
        pending += text.slice(0, Math.max(0, room));
        dropped += text.length - Math.max(0, room);
      }
    },
    flush,
    async close() {
      if (closed) return;
      clearInterval(timer);
      await flush().catch(() => undefined);
      closed = true;
      fs.closeSync(fd);
    },
  };
}
