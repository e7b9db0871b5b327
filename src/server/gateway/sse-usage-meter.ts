import { responsesUsageSchema, type TokenUsage } from "../agents/token-usage";

/**
 * Watches a Responses API event stream as it passes through and reports the usage of each finished
 * response (`response.completed`, also `response.incomplete`/`response.failed`/`response.done`, which
 * carry usage too) and in-stream failures. It works on bytes and looks only at the start of each line:
 * a `data:` line is collected and parsed only when its `event:` line or its first bytes name one of
 * those events. Every other line (a megabyte of text deltas) is skipped with a native newline search,
 * without decoding or copying it.
 */
export interface SseUsageMeterHandlers {
  onUsage: (usage: TokenUsage) => void;
  onStreamError?: (message: string) => void;
}

const HEAD_BYTES = 160;
const NEWLINE = 0x0a;
const INTERESTING_EVENTS = new Set(["response.completed", "response.incomplete", "response.failed", "response.done", "error"]);
const INTERESTING_TYPE = /"type"\s*:\s*"(response\.completed|response\.incomplete|response\.failed|response\.done|error)"/;

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
  function finishLine(line: Buffer): void {
    let text = line.toString("utf8");
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
          parts.push(chunk.subarray(pos, newline === -1 ? chunk.length : newline));
          if (newline === -1) return;
          finishLine(Buffer.concat(parts));
          pos = newline + 1;
          endOfLine();
          continue;
        }
        // head: gather up to HEAD_BYTES of the line, then decide.
        const lineEnd = newline === -1 ? chunk.length : newline;
        const take = Math.min(lineEnd - pos, HEAD_BYTES - partsLength);
        parts.push(chunk.subarray(pos, pos + take));
        partsLength += take;
        pos += take;
        if (newline !== -1 && pos === newline) {
          // The whole line fits in the head.
          const line = Buffer.concat(parts);
          if (line.length === 0 || (line.length === 1 && line[0] === 0x0d)) lastEvent = "";
          else if (interesting(line.toString("utf8"))) finishLine(line);
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
      if (mode !== "skip" && parts.length > 0) finishLine(Buffer.concat(parts));
      endOfLine();
    },
  };
}
