import { responsesUsageSchema, type TokenUsage } from "../agents/token-usage";

/**
 * Watches a Responses API event stream as it passes through and reports the usage of each finished
 * response (`response.completed`, also `response.incomplete`/`response.failed`/`response.done`, which
 * carry usage too) and in-stream failures. It works on bytes and looks only at the start of each line:
 * a `data:` line is collected and parsed only when its `event:` line or its first bytes name one of
 * those events. Every other line (a megabyte of text deltas) is skipped with a native newline search,
 * without decoding or copying it. push() keeps no reference to a chunk: the caller may reuse its memory.
 */
export interface SseUsageMeterHandlers {
  onUsage: (usage: TokenUsage) => void;
  onStreamError?: (message: string) => void;
}

const HEAD_BYTES = 160;
const NEWLINE = 0x0a;
const INTERESTING_EVENTS = new Set([
  "response.completed",
  "response.incomplete",
  "response.failed",
  "response.done",
  "error",
]);
const INTERESTING_TYPE =
  /"type"\s*:\s*"(response\.completed|response\.incomplete|response\.failed|response\.done|error)"/;

interface SseEvent {
  type?: unknown;
  response?: { usage?: unknown; error?: { message?: unknown } | null };
  message?: unknown;
  error?: { message?: unknown };
}

export function createSseUsageMeter(handlers: SseUsageMeterHandlers) {
  let mode: "head" | "collect" | "skip" = "head";
  let parts: Buffer[] = [];
  let partsLength = 0;
  let lastEvent = "";

  function report(event: SseEvent): void {
    const type = typeof event.type === "string" ? event.type : "";
    if (type !== "error" && event.response?.usage) {
      const usage = responsesUsageSchema.safeParse(event.response.usage);
      if (usage.success) handlers.onUsage(usage.data);
    }
    if (type === "response.failed") {
      const message = event.response?.error?.message;
      handlers.onStreamError?.(`response.failed: ${typeof message === "string" ? message : "no message"}`);
    } else if (type === "error") {
      const message = typeof event.message === "string" ? event.message : event.error?.message;
      handlers.onStreamError?.(`stream error: ${typeof message === "string" ? message : "no message"}`);
    }
  }

  /** A complete line we decided to read (an `event:` line, or an interesting `data:` line). */
  function finishLine(text: string): void {
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (text.startsWith("event:")) {
      lastEvent = text.slice(6).trim();
      return;
    }
    if (!text.startsWith("data:")) return;
    try {
      report(JSON.parse(text.slice(5)) as SseEvent);
    } catch {
      // not JSON: nothing to meter
    }
  }

  /** Decides from a line's first bytes whether the whole line is worth reading. */
  function interesting(head: string): boolean {
    if (head.startsWith("event:")) return true;
    if (!head.startsWith("data:")) return false;
    return INTERESTING_EVENTS.has(lastEvent) || INTERESTING_TYPE.test(head);
  }

  /** The common case, a line inside one chunk: decided and read without copying bytes. */
  function wholeLine(chunk: Buffer, start: number, end: number): void {
    const stop = end > start && chunk[end - 1] === 0x0d ? end - 1 : end;
    if (stop === start) {
      lastEvent = ""; // a blank line ends the event
      return;
    }
    if (interesting(chunk.toString("utf8", start, Math.min(stop, start + HEAD_BYTES))))
      finishLine(chunk.toString("utf8", start, stop));
  }

  function endOfLine(): void {
    mode = "head";
    parts = [];
    partsLength = 0;
  }

  return {
    push(chunk: Buffer): void {
      let pos = 0;
      while (pos < chunk.length) {
        const newline = chunk.indexOf(NEWLINE, pos);
        if (mode === "skip") {
          if (newline === -1) return;
          pos = newline + 1;
          endOfLine();
          continue;
        }
        if (mode === "collect") {
          parts.push(Buffer.from(chunk.subarray(pos, newline === -1 ? chunk.length : newline))); // a copy: the caller may reuse chunk's memory
          if (newline === -1) return;
          finishLine(Buffer.concat(parts).toString("utf8"));
          pos = newline + 1;
          endOfLine();
          continue;
        }
        if (partsLength === 0 && newline !== -1) {
          wholeLine(chunk, pos, newline);
          pos = newline + 1;
          continue;
        }
        // A line crossing chunks: gather up to HEAD_BYTES of it, then decide.
        const lineEnd = newline === -1 ? chunk.length : newline;
        const take = Math.min(lineEnd - pos, HEAD_BYTES - partsLength);
        parts.push(Buffer.from(chunk.subarray(pos, pos + take)));
        partsLength += take;
        pos += take;
        if (newline !== -1 && pos === newline) {
          const line = Buffer.concat(parts);
          wholeLine(line, 0, line.length);
          pos = newline + 1;
          endOfLine();
          continue;
        }
        if (partsLength < HEAD_BYTES) return; // the chunk ended inside the head
        mode = interesting(Buffer.concat(parts).toString("utf8")) ? "collect" : "skip";
        if (mode === "skip") parts = [];
      }
    },
    end(): void {
      if (mode === "collect") finishLine(Buffer.concat(parts).toString("utf8"));
      else if (mode === "head" && partsLength > 0) {
        const line = Buffer.concat(parts);
        wholeLine(line, 0, line.length);
      }
      endOfLine();
    },
  };
}
