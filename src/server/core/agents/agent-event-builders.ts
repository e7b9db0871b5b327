import type { TokenUsage } from "../../../shared/token-usage";
import { CODEX_EVENTS_VERSION, rawEvent, type CodexEvent, type CodexRunState } from "./codex-events";

/** Pieces the Claude Code and Gemini CLI parsers share: they build the same CodexEvent model as Codex's. */
const v = CODEX_EVENTS_VERSION;

/** A finished command with the end of its output (the last `tailChars` characters). */
export function commandFinished(options: {
  itemId: string;
  command: string;
  exitCode: number | null;
  failed: boolean;
  output: string;
  tailChars: number;
}): CodexEvent {
  const { output, tailChars } = options;
  return {
    v,
    type: "command.finished",
    itemId: options.itemId,
    command: options.command,
    exitCode: options.exitCode,
    status: options.failed ? "failed" : "completed",
    outputTail: output.length > tailChars ? output.slice(output.length - tailChars) : output,
    outputChars: output.length,
    outputTruncated: output.length > tailChars,
  };
}

function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    cachedInputTokens: a.cachedInputTokens + b.cachedInputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    reasoningTokens: a.reasoningTokens + b.reasoningTokens,
  };
}

/**
 * A run's closing line with its usage: Claude Code and Gemini CLI report this process's own tokens
 * (a resumed session's earlier runs are not in it), so the thread's total is what came before plus
 * this run. A failed run still used its tokens: token.usage either way, then turn.completed or turn.failed.
 */
export function runFinished(options: {
  state: CodexRunState;
  before: TokenUsage;
  run: TokenUsage;
  failure: string | null;
}): CodexEvent[] {
  const { state, run, failure } = options;
  const thread = addUsage(options.before, run);
  state.threadUsage = thread;
  state.runUsage = run;
  const usage: CodexEvent = { v, type: "token.usage", thread, run };
  if (failure !== null) {
    state.turnFailure = failure;
    return [usage, { v, type: "turn.failed", message: failure }];
  }
  state.turnsCompleted += 1;
  state.turnFailure = null;
  return [{ v, type: "turn.completed", usage: thread }, usage];
}

/** A session's first line: its id is the thread id a later run resumes with. */
export function sessionStarted(state: CodexRunState, sessionId: string): CodexEvent[] {
  state.threadId = sessionId;
  state.turnsStarted += 1;
  return [
    { v, type: "thread.started", threadId: sessionId },
    { v, type: "turn.started" },
  ];
}

/** Parses a JSON line, or says it is not JSON. */
export function parseJson(line: string): { ok: true; json: unknown } | { ok: false } {
  try {
    return { ok: true, json: JSON.parse(line) as unknown };
  } catch {
    return { ok: false };
  }
}

/**
 * A line that is not JSON (the CLI's stderr, or the container script's own): kept raw, and when it is
 * the script's "invariant: …" message (no gateway bridge, no glibc) it is why the run failed.
 */
export function notJsonLine(line: string, state: CodexRunState): CodexEvent {
  if (line.startsWith(SCRIPT_MESSAGE)) state.lastError = line.slice(SCRIPT_MESSAGE.length);
  return rawEvent(line, "not-json");
}
const SCRIPT_MESSAGE = "invariant: ";
