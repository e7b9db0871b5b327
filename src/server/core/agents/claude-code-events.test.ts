import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { createClaudeCodeEventParser } from "./claude-code-events";
import { codexEventSchema, type AgentEventParser, type CodexEvent } from "./codex-events";
import { claudeCodeHarness } from "./harnesses/claude-code";

// Real `claude -p --output-format stream-json --verbose` output (Claude Code 2.1.332); see fixtures/README.md.
const fixture = (name: string) =>
  fs.readFileSync(path.join(import.meta.dirname, "fixtures", `claude-code-${name}.jsonl`), "utf8");
const FIXTURES = ["fix-all", "reply-only", "http-500", "http-400", "cut-stream", "file-tools", "file-tools-resume"];
const ofType = <T extends CodexEvent["type"]>(events: CodexEvent[], type: T) =>
  events.filter((e): e is Extract<CodexEvent, { type: T }> => e.type === type);

function parse(text: string, parser: AgentEventParser = createClaudeCodeEventParser()) {
  const events = [...parser.push(text), ...parser.end()];
  return { events, state: parser.state() };
}

describe("Claude Code stream-json parser on real output", () => {
  it.each(FIXTURES)("maps every line of %s to a typed, versioned event", (name) => {
    const { events } = parse(fixture(name));
    expect(events.length).toBeGreaterThan(2);
    for (const event of events) expect(codexEventSchema.parse(event)).toEqual(event);
    // the only lines left raw are Claude Code's own progress notes (system/thinking_tokens)
    for (const event of ofType(events, "raw")) expect(event.line).toContain('"subtype":"thinking_tokens"');
  });

  it("reads a whole run: session, commands with exit codes and output, reasoning, message, the run's usage", () => {
    const { events, state } = parse(fixture("fix-all"));
    expect(events.slice(0, 2)).toEqual([
      { v: 1, type: "thread.started", threadId: "64bb86ab-7482-4762-bdac-967aa2df228f" },
      { v: 1, type: "turn.started" },
    ]);
    const commands = ofType(events, "command.finished");
    expect(commands.map((c) => [c.command.slice(0, 14), c.exitCode, c.status])).toEqual([
      ["ls src test", 0, "completed"],
      ["mkdir -p -- 's", 0, "completed"],
      ["node --test | ", 0, "completed"],
    ]);
    expect(commands[0]?.outputTail).toBe("src:\ncalendar.js\n\ntest:\ncalendar.test.js");
    expect(ofType(events, "command.started").map((c) => c.itemId)).toEqual(commands.map((c) => c.itemId));
    expect(ofType(events, "reasoning")[0]?.text).toBe("I will look at the project layout first.");
    expect(state.lastAgentMessage).toMatch(/^I implemented all eight functions/);
    // calendar-fix-all: 4 responses of 12,000 input (3,000 cached) and 1,800 output; Anthropic's
    // input_tokens leaves the cache reads out, ours counts them in; it reports no reasoning of its own
    const usage = { inputTokens: 48_000, cachedInputTokens: 12_000, outputTokens: 7_200, reasoningTokens: 0 };
    expect(ofType(events, "token.usage")).toEqual([{ v: 1, type: "token.usage", thread: usage, run: usage }]);
    expect(claudeCodeHarness.outcome({ state, exit: { exitCode: 0 } })).toEqual({
      status: "succeeded",
      threadId: "64bb86ab-7482-4762-bdac-967aa2df228f",
      finalMessage: state.lastAgentMessage,
    });
  });

  it("reads file tools and a failing command; a resumed session keeps its id and adds its own usage", () => {
    const first = parse(fixture("file-tools"));
    expect(ofType(first.events, "file.changed")).toEqual([
      expect.objectContaining({ status: "completed", changes: [{ path: "/tmp/rec/cw/hello.txt", kind: "add" }] }),
      expect.objectContaining({ status: "completed", changes: [{ path: "/tmp/rec/cw/hello.txt", kind: "update" }] }),
    ]);
    expect(ofType(first.events, "command.finished")).toEqual([
      expect.objectContaining({ command: "cat hello.txt; echo err >&2; exit 3", exitCode: 3, status: "failed" }),
    ]);
    expect(ofType(first.events, "command.finished")[0]?.outputTail).toBe("hello\nerr");
    const resumed = parse(
      fixture("file-tools-resume"),
      createClaudeCodeEventParser({ threadUsageBefore: first.state.threadUsage }),
    );
    expect(resumed.state.threadId).toBe(first.state.threadId);
    expect(resumed.state.runUsage).toEqual({
      inputTokens: 125,
      cachedInputTokens: 20,
      outputTokens: 10,
      reasoningTokens: 0,
    });
    expect(resumed.state.threadUsage.inputTokens).toBe(first.state.threadUsage.inputTokens + 125);
    expect(resumed.state.lastAgentMessage).toBe("Second turn reply.");
  });

  it.each([
    ["http-500", /API Error: 500/],
    ["http-400", /API Error: 400/],
    ["cut-stream", /ECONNRESET/],
  ])("turns %s into a failed outcome with Claude Code's reason", (name, reason) => {
    const { events, state } = parse(fixture(name));
    expect(ofType(events, "turn.failed")[0]?.message).toMatch(reason);
    expect(ofType(events, "agent.message")).toEqual([]); // the API error is not the agent's word
    const outcome = claudeCodeHarness.outcome({ state, exit: { exitCode: 1 } });
    expect(outcome).toMatchObject({ status: "failed", threadId: state.threadId });
    expect(outcome.status !== "succeeded" && outcome.reason).toMatch(reason);
  });

  it("says why the container script stopped the run (its own invariant: message)", () => {
    const line = "invariant: Claude Code needs glibc, which this image lacks";
    const { events, state } = parse(`${line}\n`);
    expect(events).toEqual([{ v: 1, type: "raw", line, reason: "not-json" }]);
    expect(claudeCodeHarness.outcome({ state, exit: { exitCode: 96 } })).toEqual({
      status: "failed",
      threadId: null,
      reason: "Claude Code exited with code 96: Claude Code needs glibc, which this image lacks",
    });
  });

  it("gives the same events however the bytes are chunked, and never throws on odd lines", () => {
    const text = fixture("fix-all") + fixture("cut-stream"); // the cut-stream reason has a multi-byte —
    const whole = parse(text).events;
    const bytes = Buffer.from(text, "utf8");
    for (const size of [1, 3, 64, 1000]) {
      const parser = createClaudeCodeEventParser();
      const events: CodexEvent[] = [];
      for (let at = 0; at < bytes.length; at += size) events.push(...parser.push(bytes.subarray(at, at + size)));
      events.push(...parser.end());
      expect(events).toEqual(whole);
    }
    const odd = ["not json", "null", "[1]", '{"type":"assistant"}', '{"type":"result","usage":"x"}', '{"type":"x"}'];
    const { events } = parse(odd.join("\n"));
    expect(events.map((e) => (e.type === "raw" ? e.reason : e.type))).toEqual([
      "not-json",
      "unknown-type",
      "unknown-type",
      "unexpected-shape",
      "turn.completed",
      "token.usage",
      "unknown-type",
    ]);
  });
});
