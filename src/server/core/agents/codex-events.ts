import { z } from "zod";
import {
  commandItem,
  errorBody,
  fileChangeItem,
  isKnownLineType,
  lineSchema,
  textItem,
  turnUsage,
} from "./codex-jsonl-shapes";
import { tokenUsageSchema, ZERO_USAGE, type TokenUsage } from "../../../shared/token-usage";
import { createJsonlStream, MAX_LINE_CHARS } from "./jsonl-stream";

/**
 * Typed events parsed from `codex exec --json` (JSONL on stdout), and the model every harness's parser
 * emits (claude-code-events.ts, gemini-cli-events.ts), so every view reads one. Version 1; add event types freely,
 * change a payload only with a new version. Shapes learned from Codex 0.171 (codex-rs/exec
 * `exec_events.rs`) and recorded in ./fixtures/. Lines that are not JSON, have an unknown `type`, or
 * do not match the known shape become `raw` events: a parser never throws on input.
 */
export const CODEX_EVENTS_VERSION = 1;

const v = z.literal(CODEX_EVENTS_VERSION);
const itemId = z.string();

export const codexEventSchema = z.discriminatedUnion("type", [
  z.object({ v, type: z.literal("thread.started"), threadId: z.string() }),
  z.object({ v, type: z.literal("turn.started") }),
  /** `usage` is what Codex reports: the thread's total so far (a resumed thread includes earlier runs). */
  z.object({ v, type: z.literal("turn.completed"), usage: tokenUsageSchema }),
  z.object({ v, type: z.literal("turn.failed"), message: z.string() }),
  z.object({ v, type: z.literal("command.started"), itemId, command: z.string() }),
  z.object({
    v,
    type: z.literal("command.finished"),
    itemId,
    command: z.string(),
    exitCode: z.number().int().nullable(),
    status: z.enum(["completed", "failed", "declined", "in_progress"]),
    /** The last `outputTailChars` characters of the command's output. */
    outputTail: z.string(),
    outputChars: z.number().int(),
    outputTruncated: z.boolean(),
  }),
  z.object({
    v,
    type: z.literal("file.changed"),
    itemId,
    status: z.enum(["in_progress", "completed", "failed"]),
    changes: z.array(z.object({ path: z.string(), kind: z.enum(["add", "delete", "update"]) })),
  }),
  z.object({ v, type: z.literal("agent.message"), itemId, text: z.string() }),
  z.object({ v, type: z.literal("reasoning"), itemId, text: z.string() }),
  /** `fatal`: a top-level stream error (usually followed by turn.failed); else a warning item. */
  z.object({ v, type: z.literal("error"), message: z.string(), fatal: z.boolean() }),
  /** After each turn.completed: the thread's total, and this run's share (thread total minus `threadUsageBefore`). */
  z.object({ v, type: z.literal("token.usage"), thread: tokenUsageSchema, run: tokenUsageSchema }),
  z.object({
    v,
    type: z.literal("raw"),
    line: z.string(),
    reason: z.enum(["not-json", "unknown-type", "unexpected-shape", "too-long"]),
  }),
]);
export type CodexEvent = z.infer<typeof codexEventSchema>;
export type CodexEventType = CodexEvent["type"];
/** Every harness's parser emits this model (named for Codex, the first harness), so every view reads one. */
export type AgentEvent = CodexEvent;

export interface CodexParserOptions {
  /** How much of a command's output to keep (its end). Default 4096 characters. */
  outputTailChars?: number;
  /** A line longer than this is not parsed but kept (cut) as a raw line. Default 16 MiB. */
  maxLineChars?: number;
  /** For `codex exec resume`: the thread's usage before this run, so `run` usage counts only this run. */
  threadUsageBefore?: TokenUsage;
}

/** What a parser has seen so far: enough to decide a run's outcome and record it. */
export interface CodexRunState {
  threadId: string | null;
  turnsStarted: number;
  turnsCompleted: number;
  /** The message of the last turn.failed, if the last turn failed. */
  turnFailure: string | null;
  /** The last fatal (top-level) error message. */
  lastError: string | null;
  lastAgentMessage: string | null;
  /** Codex's cumulative usage for the thread, as of the last turn.completed. */
  threadUsage: TokenUsage;
  /** This run's usage: threadUsage minus the options' threadUsageBefore. */
  runUsage: TokenUsage;
}

/** What every harness's event parser offers agent-run.ts: events as stdout arrives, and the run's summary. */
export interface AgentEventParser {
  /** Feed a chunk of stdout; returns the events it completed. */
  push: (chunk: string | Buffer) => CodexEvent[];
  /** The stream ended: flush a last line without a newline. */
  end: () => CodexEvent[];
  state: () => CodexRunState;
}

/** A run's state before its first line: `before` is the thread's usage from earlier runs (resume). */
export function initialRunState(before: TokenUsage = ZERO_USAGE): CodexRunState {
  return {
    threadId: null,
    turnsStarted: 0,
    turnsCompleted: 0,
    turnFailure: null,
    lastError: null,
    lastAgentMessage: null,
    threadUsage: before,
    runUsage: ZERO_USAGE,
  };
}

const RAW_LINE_KEEP = 64 * 1024;

/** A line kept as it was (cut to 64 KiB): not JSON, an unknown type, an unexpected shape, or too long. */
export function rawEvent(line: string, reason: Extract<CodexEvent, { type: "raw" }>["reason"]): CodexEvent {
  return {
    v: CODEX_EVENTS_VERSION,
    type: "raw",
    line: line.length > RAW_LINE_KEEP ? `${line.slice(0, RAW_LINE_KEEP)}…` : line,
    reason,
  };
}

/** What turning one line into events reads and updates. */
interface LineContext {
  tailChars: number;
  before: TokenUsage;
  state: CodexRunState;
}

function parseLine(line: string, context: LineContext): CodexEvent[] {
  if (line.trim() === "") return [];
  let json: unknown;
  try {
    json = JSON.parse(line);
  } catch {
    return [rawEvent(line, "not-json")];
  }
  const parsed = lineSchema.safeParse(json);
  if (!parsed.success) {
    return [rawEvent(line, isKnownLineType(json) ? "unexpected-shape" : "unknown-type")];
  }
  const { state } = context;
  const event = parsed.data;
  switch (event.type) {
    case "thread.started":
      state.threadId = event.thread_id;
      return [{ v: CODEX_EVENTS_VERSION, type: "thread.started", threadId: event.thread_id }];
    case "turn.started":
      state.turnsStarted += 1;
      state.turnFailure = null;
      return [{ v: CODEX_EVENTS_VERSION, type: "turn.started" }];
    case "turn.completed": {
      // Codex reports the thread's running total (restored from the rollout on resume), not the turn's own.
      const { thread, run } = turnUsage(event.usage, context.before);
      state.turnsCompleted += 1;
      state.threadUsage = thread;
      state.runUsage = run;
      return [
        { v: CODEX_EVENTS_VERSION, type: "turn.completed", usage: thread },
        { v: CODEX_EVENTS_VERSION, type: "token.usage", thread, run },
      ];
    }
    case "turn.failed":
      state.turnFailure = event.error.message;
      return [{ v: CODEX_EVENTS_VERSION, type: "turn.failed", message: event.error.message }];
    case "error":
      state.lastError = event.message;
      return [{ v: CODEX_EVENTS_VERSION, type: "error", message: event.message, fatal: true }];
    default:
      return mapItem({ phase: event.type, item: event.item, line, context });
  }
}

type ItemPhase = "item.started" | "item.updated" | "item.completed";

function mapItem(options: {
  phase: ItemPhase;
  item: { id: string; type: string };
  line: string;
  context: LineContext;
}): CodexEvent[] {
  const { phase, item, line } = options;
  switch (item.type) {
    case "command_execution":
      return commandEvents({ phase, item, line, tailChars: options.context.tailChars });
    case "file_change": {
      const parsed = fileChangeItem.safeParse(item);
      if (!parsed.success) return [rawEvent(line, "unexpected-shape")];
      // Codex reports a patch as started and completed; the completed one is the fact.
      if (phase !== "item.completed") return [];
      const { status, changes } = parsed.data;
      return [{ v: CODEX_EVENTS_VERSION, type: "file.changed", itemId: item.id, status, changes }];
    }
    case "agent_message":
    case "reasoning": {
      const parsed = textItem.safeParse(item);
      if (!parsed.success) return [rawEvent(line, "unexpected-shape")];
      if (phase !== "item.completed") return [];
      if (item.type === "agent_message") {
        options.context.state.lastAgentMessage = parsed.data.text;
        return [{ v: CODEX_EVENTS_VERSION, type: "agent.message", itemId: item.id, text: parsed.data.text }];
      }
      return [{ v: CODEX_EVENTS_VERSION, type: "reasoning", itemId: item.id, text: parsed.data.text }];
    }
    case "error": {
      const parsed = errorBody.safeParse(item);
      if (!parsed.success) return [rawEvent(line, "unexpected-shape")];
      return [{ v: CODEX_EVENTS_VERSION, type: "error", message: parsed.data.message, fatal: false }];
    }
    default:
      // todo_list, mcp_tool_call, web_search, collab_tool_call, plan, …: kept as log lines.
      return [rawEvent(line, "unknown-type")];
  }
}

function commandEvents(options: {
  phase: ItemPhase;
  item: { id: string };
  line: string;
  tailChars: number;
}): CodexEvent[] {
  const { item, tailChars } = options;
  const parsed = commandItem.safeParse(item);
  if (!parsed.success) return [rawEvent(options.line, "unexpected-shape")];
  const command = parsed.data.command;
  if (options.phase === "item.started")
    return [{ v: CODEX_EVENTS_VERSION, type: "command.started", itemId: item.id, command }];
  if (options.phase === "item.updated") return [];
  const output = parsed.data.aggregated_output;
  return [
    {
      v: CODEX_EVENTS_VERSION,
      type: "command.finished",
      itemId: item.id,
      command,
      exitCode: parsed.data.exit_code,
      status: parsed.data.status,
      outputTail: output.length > tailChars ? output.slice(output.length - tailChars) : output,
      outputChars: output.length,
      outputTruncated: output.length > tailChars,
    },
  ];
}

/**
 * A streaming parser: feed stdout chunks as they arrive (`push`), then `end()`. Lines may be split
 * anywhere across chunks, including inside a UTF-8 character. Each call returns the events completed
 * by that chunk; `state()` summarises the run.
 */
export function createCodexEventParser(options: CodexParserOptions = {}): AgentEventParser {
  const before = options.threadUsageBefore ?? ZERO_USAGE;
  const state = initialRunState(before);
  const context: LineContext = { tailChars: options.outputTailChars ?? 4096, before, state };
  const stream = createJsonlStream({
    maxLineChars: options.maxLineChars ?? MAX_LINE_CHARS,
    onLine: (line) => parseLine(line, context),
    tooLong: (start) => rawEvent(start, "too-long"),
  });
  return { push: stream.push, end: stream.end, state: () => ({ ...state }) };
}
export type CodexEventParser = AgentEventParser;

/** Parses a whole JSONL text at once (fixtures, stored logs). */
export function parseCodexJsonl(
  text: string,
  options?: CodexParserOptions,
): { events: CodexEvent[]; state: CodexRunState } {
  const parser = createCodexEventParser(options);
  const events = [...parser.push(text), ...parser.end()];
  return { events, state: parser.state() };
}
