import { codexEventSchema, type CodexEvent } from "../../core/agents/codex-events";
import type { InvariantEvent } from "../../../shared/event-catalog";
import type { TranscriptItem } from "../../../shared/review-schemas";
import { tokensOf } from "../../../shared/token-usage";

/**
 * A trial attempt's transcript: its recorded events (trial.* and the Codex events the agent run
 * published in agent.events batches) as a readable timeline. A command appears once: its start
 * becomes the finished command when that arrives. Codex events carry no time of their own; they
 * take the time of the batch that brought them.
 */
type CommandItem = Extract<TranscriptItem, { kind: "command" }>;

function fromCodex(event: CodexEvent, at: string): TranscriptItem | null {
  switch (event.type) {
    case "agent.message":
      return { at, kind: "message", text: event.text };
    case "reasoning":
      return { at, kind: "reasoning", text: event.text };
    case "file.changed":
      return { at, kind: "file-change", status: event.status, changes: event.changes };
    case "token.usage": {
      return { at, kind: "usage", tokens: tokensOf(event.run) };
    }
    case "error":
      return { at, kind: "error", message: event.message, fatal: event.fatal };
    case "turn.failed":
      return { at, kind: "error", message: event.message, fatal: true };
    default:
      return null;
  }
}

function commandOf(event: Extract<CodexEvent, { type: "command.finished" }>, at: string): CommandItem {
  return {
    at,
    kind: "command",
    itemId: event.itemId,
    command: event.command,
    status: event.status === "in_progress" ? "running" : event.status,
    exitCode: event.exitCode,
    outputTail: event.outputTail,
    output: event.outputTruncated ? null : event.outputTail,
    outputChars: event.outputChars,
    outputTruncated: event.outputTruncated,
  };
}

/** Adds one batch of Codex events to the timeline. */
function addCodexEvents(items: TranscriptItem[], commands: Map<string, number>, raw: unknown[], at: string): void {
  for (const value of raw) {
    const parsed = codexEventSchema.safeParse(value);
    if (!parsed.success) continue;
    const event = parsed.data;
    if (event.type === "command.started") {
      commands.set(event.itemId, items.length);
      items.push({
        at,
        kind: "command",
        itemId: event.itemId,
        command: event.command,
        status: "running",
        exitCode: null,
        outputTail: "",
        output: null,
        outputChars: 0,
        outputTruncated: false,
      });
    } else if (event.type === "command.finished") {
      const index = commands.get(event.itemId);
      const started = index === undefined ? undefined : items[index];
      if (index !== undefined && started) items[index] = { ...commandOf(event, at), at: started.at };
      else items.push(commandOf(event, at));
    } else {
      const item = fromCodex(event, at);
      if (item) items.push(item);
    }
  }
}

export function transcriptItems(options: {
  trialId: string;
  attempt: number;
  events: readonly InvariantEvent[];
}): TranscriptItem[] {
  const runId = `${options.trialId}-${options.attempt}`;
  const items: TranscriptItem[] = [];
  const commands = new Map<string, number>();
  let lastStep = "";
  for (const event of options.events) {
    const at = event.at;
    switch (event.type) {
      case "trial.started":
        if (event.data.attempt === options.attempt)
          items.push({ at, kind: "start", attempt: event.data.attempt, workspaceId: event.data.workspaceId });
        break;
      case "trial.progress": {
        const key = `${event.data.state}\0${event.data.step}`;
        if (event.data.attempt !== options.attempt || key === lastStep) break;
        lastStep = key;
        items.push({ at, kind: "step", state: event.data.state, step: event.data.step });
        break;
      }
      case "agent.events":
        if (event.data.runId === runId) addCodexEvents(items, commands, event.data.events, at);
        break;
      case "agent.finished":
        if (event.data.runId === runId && event.data.status !== "succeeded" && event.data.reason)
          items.push({ at, kind: "error", message: event.data.reason, fatal: true });
        break;
      case "trial.finished":
        if (event.data.attempt === options.attempt)
          items.push({
            at,
            kind: "finish",
            state: event.data.state,
            verdict: event.data.verdict,
            agentSeconds: event.data.agentSeconds,
            error: event.data.error,
          });
        break;
      default:
        break;
    }
  }
  return items;
}
