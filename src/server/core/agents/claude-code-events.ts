import { z } from "zod";
import { ZERO_USAGE, type TokenUsage } from "../../../shared/token-usage";
import { commandFinished, notJsonLine, parseJson, runFinished, sessionStarted } from "./agent-event-builders";
import {
  CODEX_EVENTS_VERSION as v,
  initialRunState,
  rawEvent,
  type AgentEventParser,
  type CodexEvent,
  type CodexParserOptions,
  type CodexRunState,
} from "./codex-events";
import { createJsonlStream, MAX_LINE_CHARS } from "./jsonl-stream";

/**
 * `claude -p --output-format stream-json --verbose` (JSONL on stdout) as the CodexEvent model: its
 * session is the thread, Bash tool calls are commands (the exit code from the tool result), Write,
 * Edit, MultiEdit and NotebookEdit calls are file changes, the result line closes the turn with the
 * run's usage. Shapes learned from Claude Code 2.1.332 (fixtures/claude-code-*.jsonl). A parser never
 * throws on input: lines it does not know become raw events.
 */
const usageShape = z.object({
  input_tokens: z.number().int().nonnegative().catch(0),
  cache_creation_input_tokens: z.number().int().nonnegative().nullish(),
  cache_read_input_tokens: z.number().int().nonnegative().nullish(),
  output_tokens: z.number().int().nonnegative().catch(0),
});
const block = z.looseObject({ type: z.string() });
const lineShape = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("system"), subtype: z.string(), session_id: z.string().optional() }),
  z.looseObject({
    type: z.literal("assistant"),
    uuid: z.string().catch(""),
    message: z.looseObject({ model: z.string().catch(""), content: z.array(block) }),
  }),
  z.looseObject({
    type: z.literal("user"),
    message: z.looseObject({ content: z.union([z.string(), z.array(block)]) }),
    tool_use_result: z.unknown().optional(),
  }),
  z.looseObject({
    type: z.literal("result"),
    subtype: z.string().catch(""),
    is_error: z.boolean().catch(false),
    result: z.string().nullish(),
    errors: z.array(z.string()).nullish(),
    usage: usageShape.nullish().catch(null),
  }),
]);
const KNOWN_TYPES = ["system", "assistant", "user", "result"];
const toolUse = z.object({ id: z.string(), name: z.string(), input: z.looseObject({}).catch({}) });
const toolResult = z.object({
  tool_use_id: z.string(),
  content: z.union([z.string(), z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))]).catch(""),
  is_error: z.boolean().nullish(),
});
const FILE_TOOLS = ["Write", "Edit", "MultiEdit", "NotebookEdit"];

type Pending = { kind: "command"; command: string } | { kind: "file"; tool: string; path: string };

interface Context {
  state: CodexRunState;
  before: TokenUsage;
  tailChars: number;
  /** Tool calls waiting for their result, by tool_use id. */
  pending: Map<string, Pending>;
}

/** Anthropic usage: input_tokens excludes cache reads and writes; ours counts them in (cached = reads). */
function usageOf(usage: z.infer<typeof usageShape> | null | undefined): TokenUsage {
  if (!usage) return ZERO_USAGE;
  const reads = usage.cache_read_input_tokens ?? 0;
  return {
    inputTokens: usage.input_tokens + reads + (usage.cache_creation_input_tokens ?? 0),
    cachedInputTokens: reads,
    outputTokens: usage.output_tokens,
    reasoningTokens: 0,
  };
}

function textOf(content: z.infer<typeof toolResult>["content"]): string {
  return typeof content === "string" ? content : content.map((part) => part.text ?? "").join("");
}

function assistantEvents(line: Extract<z.infer<typeof lineShape>, { type: "assistant" }>, context: Context) {
  const events: CodexEvent[] = [];
  line.message.content.forEach((item, index) => {
    const itemId = `${line.uuid}:${index}`;
    if (item.type === "text" && typeof item.text === "string") {
      // Claude Code words an API failure as a message of its own "<synthetic>" model: an error, not the agent's
      if (line.message.model === "<synthetic>") {
        context.state.lastError = item.text;
        events.push({ v, type: "error", message: item.text, fatal: false });
      } else {
        context.state.lastAgentMessage = item.text;
        events.push({ v, type: "agent.message", itemId, text: item.text });
      }
    } else if (item.type === "thinking" && typeof item.thinking === "string") {
      events.push({ v, type: "reasoning", itemId, text: item.thinking });
    } else if (item.type === "tool_use") {
      const call = toolUse.safeParse(item);
      if (!call.success) return;
      const { id, name, input } = call.data;
      if (name === "Bash") {
        const command = typeof input.command === "string" ? input.command : "";
        context.pending.set(id, { kind: "command", command });
        events.push({ v, type: "command.started", itemId: id, command });
      } else if (FILE_TOOLS.includes(name)) {
        const path = [input.file_path, input.notebook_path].find((p) => typeof p === "string");
        if (typeof path === "string") context.pending.set(id, { kind: "file", tool: name, path });
      }
    }
  });
  return events;
}

function toolResultEvents(line: Extract<z.infer<typeof lineShape>, { type: "user" }>, context: Context): CodexEvent[] {
  if (typeof line.message.content === "string") return [];
  const events: CodexEvent[] = [];
  for (const item of line.message.content) {
    const parsed = toolResult.safeParse(item);
    if (item.type !== "tool_result" || !parsed.success) continue;
    const call = context.pending.get(parsed.data.tool_use_id);
    if (!call) continue;
    context.pending.delete(parsed.data.tool_use_id);
    const failed = parsed.data.is_error === true;
    const itemId = parsed.data.tool_use_id;
    if (call.kind === "command") {
      // a failed command's result starts "Exit code N"; any other error (a timeout, a refusal) has no code
      const text = textOf(parsed.data.content);
      const code = /^Exit code (\d+)\n?/.exec(text);
      const exitCode = failed ? (code ? Number(code[1]) : null) : 0;
      const output = code ? text.slice(code[0].length) : text;
      events.push(
        commandFinished({ itemId, command: call.command, exitCode, failed, output, tailChars: context.tailChars }),
      );
    } else {
      const created = (line.tool_use_result as { type?: unknown } | undefined)?.type === "create";
      const kind = created || (call.tool === "Write" && !line.tool_use_result) ? "add" : "update";
      const status = failed ? "failed" : "completed";
      events.push({ v, type: "file.changed", itemId, status, changes: [{ path: call.path, kind }] });
    }
  }
  return events;
}

function parseLine(line: string, context: Context): CodexEvent[] {
  if (line.trim() === "") return [];
  const json = parseJson(line);
  if (!json.ok) return [notJsonLine(line, context.state)];
  const parsed = lineShape.safeParse(json.json);
  if (!parsed.success) {
    const type = (json.json as { type?: unknown } | null)?.type;
    return [rawEvent(line, KNOWN_TYPES.includes(String(type)) ? "unexpected-shape" : "unknown-type")];
  }
  const event = parsed.data;
  const { state } = context;
  switch (event.type) {
    case "system":
      if (event.subtype === "init" && event.session_id) return sessionStarted(state, event.session_id);
      if (event.subtype === "api_retry") {
        const retry = event as { attempt?: unknown; max_retries?: unknown; error_status?: unknown };
        const status = typeof retry.error_status === "number" ? `HTTP ${retry.error_status}` : "an error";
        const message = `The model API answered ${status}; Claude Code retries (attempt ${Number(retry.attempt)} of ${Number(retry.max_retries)}).`;
        return [{ v, type: "error", message, fatal: false }];
      }
      return [rawEvent(line, "unknown-type")];
    case "assistant":
      return assistantEvents(event, context);
    case "user":
      return toolResultEvents(event, context);
    case "result": {
      const failure = event.is_error
        ? event.result || event.errors?.join("; ") || `Claude Code ended with ${event.subtype || "an error"}.`
        : null;
      if (failure) state.lastError = failure;
      return runFinished({ state, before: context.before, run: usageOf(event.usage), failure });
    }
  }
}

/** A streaming parser of Claude Code's stream-json: `push` stdout chunks as they arrive, then `end()`. */
export function createClaudeCodeEventParser(options: CodexParserOptions = {}): AgentEventParser {
  const before = options.threadUsageBefore ?? ZERO_USAGE;
  const state = initialRunState(before);
  const context: Context = { state, before, tailChars: options.outputTailChars ?? 4096, pending: new Map() };
  const stream = createJsonlStream({
    maxLineChars: options.maxLineChars ?? MAX_LINE_CHARS,
    onLine: (line) => parseLine(line, context),
    tooLong: (start) => rawEvent(start, "too-long"),
  });
  return { push: stream.push, end: stream.end, state: () => ({ ...state }) };
}
