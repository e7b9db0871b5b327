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
 * `gemini --output-format stream-json` (JSONL on stdout) as the CodexEvent model: init is the
 * thread, run_shell_command calls are commands, write_file and replace calls file changes, the
 * assistant's streamed message chunks one agent.message, the result line closes the turn with its
 * stats. Its tool results carry no exit code: a command's is known only when its output is Gemini
 * CLI's "Command exited with code: N" (a failing command that printed nothing), else null.
 * Shapes learned from Gemini CLI 0.61.0 (fixtures/gemini-cli-*.jsonl). Never throws on input.
 */
const stats = z.object({
  input_tokens: z.number().int().nonnegative().catch(0),
  output_tokens: z.number().int().nonnegative().catch(0),
  cached: z.number().int().nonnegative().catch(0),
  total_tokens: z.number().int().nonnegative().catch(0),
});
const lineShape = z.discriminatedUnion("type", [
  z.looseObject({ type: z.literal("init"), session_id: z.string() }),
  z.looseObject({ type: z.literal("message"), role: z.string(), content: z.string(), delta: z.boolean().nullish() }),
  z.looseObject({
    type: z.literal("tool_use"),
    tool_name: z.string(),
    tool_id: z.string(),
    parameters: z.looseObject({}).catch({}),
  }),
  z.looseObject({
    type: z.literal("tool_result"),
    tool_id: z.string(),
    status: z.string(),
    output: z.string().nullish(),
    error: z.looseObject({ message: z.string().catch("") }).nullish(),
  }),
  z.looseObject({ type: z.literal("error"), severity: z.string().catch("error"), message: z.string() }),
  z.looseObject({
    type: z.literal("result"),
    status: z.string(),
    error: z.looseObject({ message: z.string().catch("") }).nullish(),
    stats: stats.nullish(),
  }),
]);
const KNOWN_TYPES = ["init", "message", "tool_use", "tool_result", "error", "result"];
const FILE_TOOLS: Record<string, "add" | "update"> = { write_file: "add", replace: "update", edit: "update" };

type Pending = { kind: "command"; command: string } | { kind: "file"; path: string; change: "add" | "update" };

interface Context {
  state: CodexRunState;
  before: TokenUsage;
  tailChars: number;
  pending: Map<string, Pending>;
  /** The assistant message being streamed (its delta chunks), closed by the next other line. */
  message: { itemId: string; text: string } | null;
  messages: number;
}

/** Gemini's stats: input_tokens counts the cached ones; output_tokens leaves out thinking, which total_tokens has. */
function usageOf(figures: z.infer<typeof stats> | null | undefined): TokenUsage {
  if (!figures) return ZERO_USAGE;
  const thinking = Math.max(0, figures.total_tokens - figures.input_tokens - figures.output_tokens);
  return {
    inputTokens: figures.input_tokens,
    cachedInputTokens: figures.cached,
    outputTokens: figures.output_tokens + thinking,
    reasoningTokens: thinking,
  };
}

function closeMessage(context: Context): CodexEvent[] {
  const message = context.message;
  context.message = null;
  if (!message || message.text === "") return [];
  context.state.lastAgentMessage = message.text;
  return [{ v, type: "agent.message", itemId: message.itemId, text: message.text }];
}

function toolEvents(line: z.infer<typeof lineShape>, context: Context): CodexEvent[] {
  if (line.type === "tool_use") {
    const { tool_id: itemId, tool_name: name, parameters } = line;
    if (name === "run_shell_command") {
      const command = typeof parameters.command === "string" ? parameters.command : "";
      context.pending.set(itemId, { kind: "command", command });
      return [{ v, type: "command.started", itemId, command }];
    }
    const change = FILE_TOOLS[name];
    if (change && typeof parameters.file_path === "string")
      context.pending.set(itemId, { kind: "file", path: parameters.file_path, change });
    return [];
  }
  if (line.type !== "tool_result") return [];
  const call = context.pending.get(line.tool_id);
  if (!call) return [];
  context.pending.delete(line.tool_id);
  const failed = line.status !== "success";
  if (call.kind === "file")
    return [
      {
        v,
        type: "file.changed",
        itemId: line.tool_id,
        status: failed ? "failed" : "completed",
        changes: [{ path: call.path, kind: call.change }],
      },
    ];
  const output = line.output ?? line.error?.message ?? "";
  const code = /^Command exited with code: (\d+)$/.exec(output.trim());
  const exitCode = code ? Number(code[1]) : null;
  const tailChars = context.tailChars;
  return [commandFinished({ itemId: line.tool_id, command: call.command, exitCode, failed, output, tailChars })];
}

function lineEvents(line: z.infer<typeof lineShape>, context: Context): CodexEvent[] {
  const { state } = context;
  switch (line.type) {
    case "init":
      return sessionStarted(state, line.session_id);
    case "message": {
      if (line.role !== "assistant") return [];
      context.message ??= { itemId: `message_${(context.messages += 1)}`, text: "" };
      context.message.text += line.content;
      return line.delta ? [] : closeMessage(context);
    }
    case "error": {
      const fatal = line.severity === "error";
      if (fatal) state.lastError = line.message;
      return [{ v, type: "error", message: line.message, fatal }];
    }
    case "result": {
      const failure = line.status === "success" ? null : line.error?.message || `Gemini CLI ended with ${line.status}.`;
      if (failure) state.lastError = failure;
      return runFinished({ state, before: context.before, run: usageOf(line.stats), failure });
    }
    default:
      return toolEvents(line, context);
  }
}

function parseLine(line: string, context: Context): CodexEvent[] {
  if (line.trim() === "") return [];
  const json = parseJson(line);
  if (!json.ok) return [...closeMessage(context), notJsonLine(line, context.state)];
  const parsed = lineShape.safeParse(json.json);
  if (!parsed.success) {
    const type = (json.json as { type?: unknown } | null)?.type;
    return [
      ...closeMessage(context),
      rawEvent(line, KNOWN_TYPES.includes(String(type)) ? "unexpected-shape" : "unknown-type"),
    ];
  }
  const streaming = parsed.data.type === "message" && parsed.data.role === "assistant";
  return [...(streaming ? [] : closeMessage(context)), ...lineEvents(parsed.data, context)];
}

/** A streaming parser of Gemini CLI's stream-json: `push` stdout chunks as they arrive, then `end()`. */
export function createGeminiCliEventParser(options: CodexParserOptions = {}): AgentEventParser {
  const before = options.threadUsageBefore ?? ZERO_USAGE;
  const state = initialRunState(before);
  const context: Context = {
    state,
    before,
    tailChars: options.outputTailChars ?? 4096,
    pending: new Map(),
    message: null,
    messages: 0,
  };
  const stream = createJsonlStream({
    maxLineChars: options.maxLineChars ?? MAX_LINE_CHARS,
    onLine: (line) => parseLine(line, context),
    tooLong: (start) => rawEvent(start, "too-long"),
  });
  return {
    push: stream.push,
    // a message still streaming when stdout closed is the agent's last word
    end: () => [...stream.end(), ...closeMessage(context)],
    state: () => ({ ...state }),
  };
}
