import { StringDecoder } from "node:string_decoder";

/**
 * Splits an agent CLI's stdout into lines as chunks arrive: lines may be split anywhere across
 * chunks, including inside a UTF-8 character. A line longer than `maxLineChars` is not parsed but
 * handed to `tooLong` (what was read of it) and the rest of it is skipped. Every event parser of an
 * agent CLI (codex-events.ts, claude-code-events.ts, gemini-cli-events.ts) reads its lines through this.
 */
export function createJsonlStream<E>(options: {
  maxLineChars: number;
  onLine: (line: string) => E[];
  tooLong: (start: string) => E;
}) {
  const decoder = new StringDecoder("utf8");
  let pending = "";
  let skippingLongLine = false;

  function take(text: string): E[] {
    const events: E[] = [];
    let start = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
      const piece = text.slice(start, newline);
      start = newline + 1;
      if (skippingLongLine) {
        skippingLongLine = false;
        continue;
      }
      const line = pending + piece;
      pending = "";
      events.push(...options.onLine(line.endsWith("\r") ? line.slice(0, -1) : line));
    }
    if (skippingLongLine) return events;
    pending += text.slice(start);
    if (pending.length > options.maxLineChars) {
      events.push(options.tooLong(pending));
      pending = "";
      skippingLongLine = true;
    }
    return events;
  }

  return {
    /** Feed a chunk of stdout; returns the events of the lines it completed. */
    push: (chunk: string | Buffer): E[] => take(typeof chunk === "string" ? chunk : decoder.write(chunk)),
    /** The stream ended: a last line without a newline is parsed too. */
    end: (): E[] => {
      const events = take(decoder.end());
      const rest = pending;
      pending = "";
      if (!skippingLongLine && rest.trim() !== "") events.push(...options.onLine(rest));
      return events;
    },
  };
}

/** Default longest line a parser reads (a longer one is kept, cut, as a raw line). */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;
