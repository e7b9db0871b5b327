import { describe, expect, it } from "vitest";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { transcriptItems } from "./transcript";

const ids = { v: 1 as const, projectId: "p", studyId: "s", trialId: "t" };
const usage = { inputTokens: 10, cachedInputTokens: 2, outputTokens: 5, reasoningTokens: 1 };
const codex = (attempt: number, at: string, events: Record<string, unknown>[]): InvariantEvent => ({
  ...ids,
  at,
  type: "agent.events",
  data: { runId: `t-${attempt}`, events },
});

const events: InvariantEvent[] = [
  { ...ids, at: "1", type: "trial.started", data: { attempt: 1, workspaceId: "ws-old" } },
  codex(1, "2", [{ v: 1, type: "agent.message", itemId: "m", text: "first attempt" }]),
  { ...ids, at: "3", type: "trial.started", data: { attempt: 2, workspaceId: "ws-new" } },
  {
    ...ids,
    at: "4",
    type: "trial.progress",
    data: { attempt: 2, state: "agent", step: "Running", usage: null, commandsRun: null },
  },
  {
    ...ids,
    at: "4b",
    type: "trial.progress",
    data: { attempt: 2, state: "agent", step: "Running", usage, commandsRun: 1 },
  },
  codex(2, "5", [
    { v: 1, type: "command.started", itemId: "c1", command: "ls" },
    { v: 1, type: "reasoning", itemId: "r", text: "thinking" },
  ]),
  codex(2, "6", [
    {
      v: 1,
      type: "command.finished",
      itemId: "c1",
      command: "ls",
      exitCode: 0,
      status: "completed",
      outputTail: "a\nb\n",
      outputChars: 4,
      outputTruncated: false,
    },
    { v: 1, type: "file.changed", itemId: "f", status: "completed", changes: [{ path: "a", kind: "add" }] },
    { v: 1, type: "token.usage", thread: usage, run: usage },
    { v: 1, type: "raw", line: "noise", reason: "not-json" },
    { v: 1, type: "command.started", itemId: "c2", command: "sleep 9" },
  ]),
];

describe("a transcript", () => {
  it("keeps one attempt, merges a command's start and finish, and leaves noise out", () => {
    const items = transcriptItems({ trialId: "t", attempt: 2, events });
    expect(items.map((item) => item.kind)).toEqual([
      "start",
      "step",
      "command",
      "reasoning",
      "file-change",
      "usage",
      "command",
    ]);
    expect(items[2]).toMatchObject({ at: "5", command: "ls", exitCode: 0, status: "completed", output: "a\nb\n" });
    expect(items[5]).toMatchObject({ tokens: { input: 10, output: 5, total: 15 } });
    expect(items[6]).toMatchObject({ command: "sleep 9", status: "running", exitCode: null });
    const first = transcriptItems({ trialId: "t", attempt: 1, events });
    expect(first).toEqual([
      { at: "1", kind: "start", attempt: 1, workspaceId: "ws-old" },
      { at: "2", kind: "message", text: "first attempt" },
    ]);
  });
});
