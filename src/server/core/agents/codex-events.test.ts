import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { codexEventSchema, createCodexEventParser, parseCodexJsonl, type CodexEvent } from "./codex-events";
import { codexRunOutcome } from "./codex-outcome";

// Real `codex exec --json` output (Codex 0.171) recorded against the mock model; see fixtures/README.md.
const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "fixtures", `${name}.jsonl`), "utf8");
const FIXTURES = ["hello", "edit-file", "edit-file-resume", "patch-and-failing-command", "http-500", "cut-stream"];
const ofType = <T extends CodexEvent["type"]>(events: CodexEvent[], type: T) =>
  events.filter((e): e is Extract<CodexEvent, { type: T }> => e.type === type);

describe("Codex JSONL parser on real output", () => {
  it.each(FIXTURES)("maps every line of %s to a typed, versioned event", (name) => {
    const { events } = parseCodexJsonl(fixture(name));
    expect(events.length).toBeGreaterThan(3);
    for (const event of events) expect(codexEventSchema.parse(event)).toEqual(event);
    expect(ofType(events, "raw")).toEqual([]);
  });

  it("reads a complete turn: thread, command with exit code and output, message, usage", () => {
    const { events, state } = parseCodexJsonl(fixture("hello"));
    expect(events[0]).toEqual({ v: 1, type: "thread.started", threadId: "01a2293c-7dff-75b1-ac1b-38eed254917c" });
    expect(ofType(events, "error")[0]).toMatchObject({
      fatal: false,
      message: expect.stringContaining("Model metadata") as string,
    });
    expect(ofType(events, "command.started")).toEqual([
      {
        v: 1,
        type: "command.started",
        itemId: "item_1",
        command: "/bin/bash -c 'echo hello from the mock model && pwd'",
      },
    ]);
    expect(ofType(events, "command.finished")[0]).toMatchObject({
      exitCode: 0,
      status: "completed",
      outputTail: expect.stringMatching(/^hello from the mock model\n/) as string,
      outputTruncated: false,
    });
    expect(ofType(events, "agent.message")[0]?.text).toBe("Hello! I ran one command in your workspace.");
    const usage = { inputTokens: 240, cachedInputTokens: 40, outputTokens: 30, reasoningTokens: 10 };
    expect(ofType(events, "turn.completed")).toEqual([{ v: 1, type: "turn.completed", usage }]);
    expect(ofType(events, "token.usage")).toEqual([{ v: 1, type: "token.usage", thread: usage, run: usage }]);
    expect(state).toMatchObject({
      threadId: "01a2293c-7dff-75b1-ac1b-38eed254917c",
      turnsStarted: 1,
      turnsCompleted: 1,
      turnFailure: null,
      lastAgentMessage: "Hello! I ran one command in your workspace.",
    });
    expect(codexRunOutcome({ state, exit: { exitCode: 0 } })).toEqual({
      status: "succeeded",
      threadId: state.threadId,
      finalMessage: "Hello! I ran one command in your workspace.",
    });
  });

  it("reads reasoning, a file change from apply_patch and a failed command", () => {
    const { events } = parseCodexJsonl(fixture("patch-and-failing-command"));
    expect(ofType(events, "reasoning")).toEqual([
      { v: 1, type: "reasoning", itemId: "item_1", text: "Thinking about the patch." },
    ]);
    // Codex reports the patch as started and completed; only the completed fact becomes an event.
    expect(ofType(events, "file.changed")).toEqual([
      {
        v: 1,
        type: "file.changed",
        itemId: "item_2",
        status: "completed",
        changes: [{ path: "/tmp/probe/c-ok/hello.txt", kind: "add" }],
      },
    ]);
    expect(ofType(events, "command.finished")[0]).toMatchObject({
      exitCode: 3,
      status: "failed",
      outputTail: "hello from patch\n",
    });
  });

  it("counts a resumed run's own tokens: Codex reports the thread's running total", () => {
    const first = parseCodexJsonl(fixture("edit-file"));
    expect(first.state.threadUsage).toEqual({
      inputTokens: 4000,
      cachedInputTokens: 800,
      outputTokens: 200,
      reasoningTokens: 40,
    });
    const resumed = parseCodexJsonl(fixture("edit-file-resume"), { threadUsageBefore: first.state.threadUsage });
    expect(resumed.state.threadId).toBe(first.state.threadId);
    expect(resumed.state.threadUsage).toEqual({
      inputTokens: 6000,
      cachedInputTokens: 1200,
      outputTokens: 300,
      reasoningTokens: 60,
    });
    expect(resumed.state.runUsage).toEqual({
      inputTokens: 2000,
      cachedInputTokens: 400,
      outputTokens: 100,
      reasoningTokens: 20,
    });
  });

  it("turns an HTTP 500 and a cut stream into failed outcomes with the reason", () => {
    const http500 = parseCodexJsonl(fixture("http-500"));
    expect(ofType(http500.events, "turn.failed")).toHaveLength(1);
    expect(ofType(http500.events, "error").at(-1)).toMatchObject({ fatal: true });
    const outcome500 = codexRunOutcome({
      state: http500.state,
      exit: { exitCode: 1, upstreamError: "HTTP 500: The mock model was scripted to answer HTTP 500." },
    });
    expect(outcome500).toMatchObject({ status: "failed", threadId: "01a2293c-92db-7bf2-b929-a7259ddfd4b1" });
    expect(outcome500.status === "failed" && outcome500.reason).toMatch(
      /^The agent's turn failed: We’re currently experiencing high demand.*\(model gateway: upstream answered HTTP 500: The mock model was scripted/,
    );

    const cut = parseCodexJsonl(fixture("cut-stream"));
    const outcomeCut = codexRunOutcome({ state: cut.state, exit: { exitCode: 1 } });
    expect(outcomeCut.status === "failed" && outcomeCut.reason).toMatch(
      /^The agent's turn failed: stream disconnected before completion/,
    );
  });
});

describe("Codex JSONL parser, streaming and garbage", () => {
  it("gives the same events however the bytes are chunked, even inside a UTF-8 character", () => {
    const text = fixture("http-500") + fixture("edit-file"); // the 500 message has a multi-byte ’
    const whole = parseCodexJsonl(text).events;
    const bytes = Buffer.from(text, "utf8");
    for (const size of [1, 2, 3, 7, 64, 1000]) {
      const parser = createCodexEventParser();
      const events: CodexEvent[] = [];
      for (let at = 0; at < bytes.length; at += size) events.push(...parser.push(bytes.subarray(at, at + size)));
      events.push(...parser.end());
      expect(events).toEqual(whole);
    }
  });

  it("emits events as soon as their line is complete", () => {
    const parser = createCodexEventParser();
    expect(parser.push('{"type":"thread.started","thread_id":"t-1"')).toEqual([]);
    expect(parser.push('}\n{"type":"turn.st')).toEqual([{ v: 1, type: "thread.started", threadId: "t-1" }]);
    expect(parser.push('arted"}\r\n')).toEqual([{ v: 1, type: "turn.started" }]);
    expect(parser.end()).toEqual([]);
  });

  it("keeps non-JSON, unknown and malformed lines as raw log lines and never throws", () => {
    const lines = [
      "Reading additional input from stdin...",
      "{not json",
      "null",
      "[1,2,3]",
      '"a string"',
      '{"type":"item.plan.delta","item_id":"x","delta":"step"}',
      '{"type":"item.completed","item":{"id":"i9","type":"todo_list","items":[{"text":"a","completed":false}]}}',
      '{"type":"turn.completed","usage":{"input_tokens":"many"}}',
      '{"type":"item.completed","item":{"id":"i1","type":"command_execution"}}',
      '{"no_type":true}',
      "",
      "   ",
    ];
    const { events, state } = parseCodexJsonl(`${lines.join("\n")}\n{"type":"turn.started"}`); // last line without newline
    expect(events.map((e) => (e.type === "raw" ? e.reason : e.type))).toEqual([
      "not-json",
      "not-json",
      "unknown-type",
      "unknown-type",
      "unknown-type",
      "unknown-type",
      "unknown-type",
      "unexpected-shape",
      "unexpected-shape",
      "unknown-type",
      "turn.started",
    ]);
    expect(events[0]).toEqual({
      v: 1,
      type: "raw",
      line: "Reading additional input from stdin...",
      reason: "not-json",
    });
    expect(state.turnsStarted).toBe(1);
  });

  it("caps a command's output to its tail and a runaway line to a raw event", () => {
    const output = `${"x".repeat(10_000)}THE END`;
    const line = JSON.stringify({
      type: "item.completed",
      item: {
        id: "i1",
        type: "command_execution",
        command: "make",
        aggregated_output: output,
        exit_code: 2,
        status: "failed",
      },
    });
    const [event] = parseCodexJsonl(line, { outputTailChars: 100 }).events;
    expect(event).toMatchObject({ type: "command.finished", exitCode: 2, outputChars: 10_007, outputTruncated: true });
    expect(event?.type === "command.finished" && event.outputTail).toHaveLength(100);
    expect(event?.type === "command.finished" && event.outputTail.endsWith("THE END")).toBe(true);

    const parser = createCodexEventParser({ maxLineChars: 1000 });
    const events = [
      ...parser.push("y".repeat(600)),
      ...parser.push("y".repeat(600)),
      ...parser.push("yyy\n"),
      ...parser.push('{"type":"turn.started"}\n'),
      ...parser.end(),
    ];
    expect(events.map((e) => e.type)).toEqual(["raw", "turn.started"]);
    expect(events[0]).toMatchObject({ reason: "too-long" });
  });
});

describe("run outcome", () => {
  const base = parseCodexJsonl(fixture("hello")).state;
  it("says why a run did not succeed", () => {
    expect(
      codexRunOutcome({ state: base, exit: { exitCode: 0, stoppedBecause: "Stopped after its 600 s timeout." } }),
    ).toEqual({ status: "stopped", threadId: base.threadId, reason: "Stopped after its 600 s timeout." });
    expect(codexRunOutcome({ state: { ...base, lastError: "boom" }, exit: { exitCode: 2 } })).toMatchObject({
      status: "failed",
      reason: "Codex exited with code 2: boom",
    });
    expect(codexRunOutcome({ state: base, exit: { exitCode: null, signal: "SIGKILL" } })).toMatchObject({
      status: "failed",
      reason: "Codex was killed by SIGKILL before it finished.",
    });
    const noTurn = parseCodexJsonl('{"type":"thread.started","thread_id":"t"}\n{"type":"turn.started"}\n').state;
    expect(codexRunOutcome({ state: noTurn, exit: { exitCode: 0 } })).toMatchObject({
      status: "failed",
      reason: "Codex exited without completing its turn.",
    });
    expect(codexRunOutcome({ state: parseCodexJsonl("").state, exit: { exitCode: 1 } })).toMatchObject({
      status: "failed",
      threadId: null,
      reason: "Codex exited with code 1.",
    });
  });
});
