import { responsesUsageSchema, type TokenUsage } from "../../../shared/token-usage";
import { clip } from "./echo-limit";

/**
 * Watches a model API's event stream as it passes through and reports the usage of each finished
 * response and in-stream failures. What to read is the API's (its `SseDialect`): for the Responses API
 * (the default) `response.completed` (also `response.incomplete`/`response.failed`/`response.done`,
 * which carry usage too); Anthropic's and Gemini's are in apis/. It works on bytes and looks only at
 * the start of each line: a `data:` line is collected and parsed only when its `event:` line or its
 * first bytes are what the dialect wants. Every other line (a megabyte of text deltas) is skipped with
 * a native newline search, without decoding or copying it. push() keeps no reference to a chunk: the
 * caller may reuse its memory.
 */
export interface SseUsageMeterHandlers {
  onUsage: (usage: TokenUsage) => void;
  onStreamError?: (message: string) => void;
  /** The model name a finished response reports (`response.model`). */
  onModel?: (model: string) => void;
}

/** How one API's stream reports its usage: which lines to read, what they say, and what is left at the end. */
export interface SseDialect {
  /** Whether a `data:` line is worth parsing, from its first bytes and the `event:` it belongs to ("" for none). */
  wants(head: string, event: string): boolean;
  /** Skip a wanted line without parsing it unless it contains this (a cheap check for big lines). */
  needle?: string;
  /** A parsed `data:` line. */
  read(data: unknown, event: string): void;
  /** The stream ended, whole or cut: report what was held back (cumulative figures). */
  end?(): void;
}
export type SseDialectFactory = (handlers: SseUsageMeterHandlers) => SseDialect;

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

/** A meter for one event stream, in the Responses API's dialect unless given another. */
export function createSseUsageMeter(
  handlers: SseUsageMeterHandlers,
  dialect: SseDialectFactory = responsesDialect,
): SseUsageMeter {
  return new SseUsageMeter(handlers, dialect);
}

/** The Responses API: every finished response reports its usage and model; failures say why. */
export const responsesDialect: SseDialectFactory = (handlers) => ({
  wants: (head, event) => INTERESTING_EVENTS.has(event) || INTERESTING_TYPE.test(head),
  read: (data) => report(data as SseEvent, handlers),
});

function report(event: SseEvent, handlers: SseUsageMeterHandlers): void {
  if (typeof event !== "object" || event === null) return;
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
  private readonly dialect: SseDialect;
  private ended = false;
  /** Whether the stream reported a response's usage so far. */
  metered = false;

  constructor(handlers: SseUsageMeterHandlers, dialect: SseDialectFactory) {
    this.dialect = dialect({
      ...handlers,
      onUsage: (usage) => {
        this.metered = true;
        handlers.onUsage(usage);
      },
    });
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
    if (this.ended) return; // a dialect reports what it held back once
    this.ended = true;
    if (this.mode === "collect") this.finishLine(Buffer.concat(this.parts).toString("utf8"));
    else if (this.mode === "head" && this.partsLength > 0) {
      const line = Buffer.concat(this.parts);
      this.wholeLine(line, 0, line.length);
    }
    this.endOfLine();
    this.dialect.end?.();
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
    if (this.dialect.needle !== undefined && !text.includes(this.dialect.needle)) return;
    let data: unknown;
    try {
      data = JSON.parse(text.slice(5));
    } catch {
      return; // not JSON: nothing to meter
    }
    this.dialect.read(data, this.lastEvent);
  }

  /** Decides from a line's first bytes whether the whole line is worth reading. */
  private interesting(head: string): boolean {
    if (head.startsWith("event:")) return true;
    if (!head.startsWith("data:")) return false;
    return this.dialect.wants(head, this.lastEvent);
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
