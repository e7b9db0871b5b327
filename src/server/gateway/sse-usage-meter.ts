import { StringDecoder } from "node:string_decoder";
import { responsesUsageSchema, type TokenUsage } from "../agents/token-usage";

/**
 * Watches a Responses API event stream as it passes through and reports the usage of each finished
 * response (`response.completed`, also `response.incomplete`/`response.failed`, which carry usage
 * too) and in-stream failures. Only `data:` lines that mention `"usage"` or an error are parsed, so a
 * megabyte of text deltas costs a substring scan, not a JSON parse.
 */
export interface SseUsageMeterHandlers {
  onUsage: (usage: TokenUsage) => void;
  onStreamError?: (message: string) => void;
}

const FINISHED = new Set(["response.completed", "response.incomplete", "response.failed", "response.done"]);

export function createSseUsageMeter(handlers: SseUsageMeterHandlers) {
  const decoder = new StringDecoder("utf8");
  let pending = "";

  function inspect(line: string): void {
    if (!line.startsWith("data:")) return;
    const mentionsUsage = line.includes('"usage"');
    const mentionsFailure = line.includes('"response.failed"') || line.includes('"type":"error"');
    if (!mentionsUsage && !mentionsFailure) return;
    let event: { type?: unknown; response?: { usage?: unknown; error?: { message?: unknown } | null }; message?: unknown; error?: { message?: unknown } };
    try {
      event = JSON.parse(line.slice(5)) as typeof event;
    } catch {
      return;
    }
    const type = typeof event.type === "string" ? event.type : "";
    if (FINISHED.has(type) && event.response?.usage) {
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

  function take(text: string): void {
    let start = 0;
    for (let newline = text.indexOf("\n"); newline !== -1; newline = text.indexOf("\n", start)) {
      const line = pending + text.slice(start, newline);
      pending = "";
      start = newline + 1;
      inspect(line.endsWith("\r") ? line.slice(0, -1) : line);
    }
    pending += text.slice(start);
  }

  return {
    push(chunk: Buffer): void {
      take(decoder.write(chunk));
    },
    end(): void {
      take(decoder.end());
      if (pending) inspect(pending);
      pending = "";
    },
  };
}
