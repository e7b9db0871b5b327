import { responsesUsageSchema, type TokenUsage } from "../../../shared/token-usage";
import { clip } from "./echo-limit";

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
  /** The model name a finished response reports (`response.model`). */
  onModel?: (model: string) => void;
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
  response?: { usage?: unknown; model?: unknown; error?: { message?: unknown } | null };
  message?: unknown;
  error?: { message?: unknown };
}

export function createSseUsageMeter(handlers: SseUsageMeterHandlers): SseUsageMeter {
  return new SseUsageMeter(handlers);
}

function report(event: SseEvent, handlers: SseUsageMeterHandlers): void {
  const type = typeof event.type === "string" ? event.type : "";
  if (type !== "error" && event.response?.usage) {
    const usage = responsesUsageSchema.safeParse(event.response.usage);
    if (usage.success) handlers.onUsage(usage.data);
  }
  const model = event.response?.model;
  if (type !== "error" && typeof model === "string" && model !== "") handlers.onModel?.(model.slice(0, 200));
  if (type === "response.failed") {
    const message = event.response?.error?.message;
    handlers.onStreamError?.(`response.failed: ${typeof message === "string" ? clip(message, 500) : "no message"}`);
  } else if (type === "error") {
    const message = typeof event.message === "string" ? event.message : event.error?.message;
    handlers.onStreamError?.(`stream error: ${typeof message === "string" ? clip(message, 500) : "no message"}`);
  }
}

/** The meter's place in the stream: at a line's head, collecting a line to read, or skipping one. */
export class SseUsageMeter {
  private mode: "head" | "collect" | "skip" = "head";
  private parts: Buffer[] = [];
  private partsLength = 0;
  private lastEvent = "";
  private readonly handlers: SseUsageMeterHandlers;
  /** Whether the stream reported a response's usage so far. */
  metered = false;

  constructor(handlers: SseUsageMeterHandlers) {
    this.handlers = {
      ...handlers,
      onUsage: (usage) => {
        this.metered = true;
        handlers.onUsage(usage);
      },
    };
  }

  push(chunk: Buffer): void {
    let pos = 0;
    while (pos < chunk.length) {
      const newline = chunk.indexOf(NEWLINE, pos);
      if (this.mode === "skip") {
        if (newline === -1) return;
        pos = newline + 1;
        this.endOfLine();
        continue;
      }
      if (this.mode === "collect") {
        this.parts.push(Buffer.from(chunk.subarray(pos, newline === -1 ? chunk.length : newline))); // a copy: the caller may reuse chunk's memory
        if (newline === -1) return;
        this.finishLine(Buffer.concat(this.parts).toString("utf8"));
        pos = newline + 1;
        this.endOfLine();
        continue;
      }
      if (this.partsLength === 0 && newline !== -1) {
        this.wholeLine(chunk, pos, newline);
        pos = newline + 1;
        continue;
      }
      pos = this.lineHead(chunk, pos, newline);
      if (pos === -1) return;
    }
  }

  end(): void {
    if (this.mode === "collect") this.finishLine(Buffer.concat(this.parts).toString("utf8"));
    else if (this.mode === "head" && this.partsLength > 0) {
      const line = Buffer.concat(this.parts);
      this.wholeLine(line, 0, line.length);
    }
    this.endOfLine();
  }

  /**
   * A line crossing chunks: gathers up to HEAD_BYTES of it, then decides. Returns where to go on in
   * the chunk, or -1 when the chunk ended inside the head.
   */
  private lineHead(chunk: Buffer, from: number, newline: number): number {
    let pos = from;
    const lineEnd = newline === -1 ? chunk.length : newline;
    const take = Math.min(lineEnd - pos, HEAD_BYTES - this.partsLength);
    this.parts.push(Buffer.from(chunk.subarray(pos, pos + take)));
    this.partsLength += take;
    pos += take;
    if (newline !== -1 && pos === newline) {
      const line = Buffer.concat(this.parts);
      this.wholeLine(line, 0, line.length);
      this.endOfLine();
      return newline + 1;
    }
    if (this.partsLength < HEAD_BYTES) return -1; // the chunk ended inside the head
    this.mode = this.interesting(Buffer.concat(this.parts).toString("utf8")) ? "collect" : "skip";
    if (this.mode === "skip") this.parts = [];
    return pos;
  }

  /** A complete line we decided to read (an `event:` line, or an interesting `data:` line). */
  private finishLine(line: string): void {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (text.startsWith("event:")) {
      this.lastEvent = text.slice(6).trim();
      return;
    }
    if (!text.startsWith("data:")) return;
    try {
      report(JSON.parse(text.slice(5)) as SseEvent, this.handlers);
    } catch {
      // not JSON: nothing to meter
    }
  }

  /** Decides from a line's first bytes whether the whole line is worth reading. */
  private interesting(head: string): boolean {
    if (head.startsWith("event:")) return true;
    if (!head.startsWith("data:")) return false;
    return INTERESTING_EVENTS.has(this.lastEvent) || INTERESTING_TYPE.test(head);
  }

  /** The common case, a line inside one chunk: decided and read without copying bytes. */
  private wholeLine(chunk: Buffer, start: number, end: number): void {
    const stop = end > start && chunk[end - 1] === 0x0d ? end - 1 : end;
    if (stop === start) {
      this.lastEvent = ""; // a blank line ends the event
      return;
    }
    if (this.interesting(chunk.toString("utf8", start, Math.min(stop, start + HEAD_BYTES))))
      this.finishLine(chunk.toString("utf8", start, stop));
  }

  private endOfLine(): void {
    this.mode = "head";
    this.parts = [];
    this.partsLength = 0;
  }
}
