import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { codexEventSchema, type AgentEventParser, type CodexEvent } from "./codex-events";
import { createGeminiCliEventParser } from "./gemini-cli-events";
import { geminiCliHarness } from "./harnesses/gemini-cli";

// Real `gemini --output-format stream-json` output (Gemini CLI 0.61.0); see fixtures/README.md.
const fixture = (name: string) =>
  fs.readFileSync(path.join(import.meta.dirname, "fixtures", `gemini-cli-${name}.jsonl`), "utf8");
const FIXTURES = ["fix-all", "reply-only", "http-500", "http-400", "cut-stream", "file-tools", "file-tools-resume"];
const ofType = <T extends CodexEvent["type"]>(events: CodexEvent[], type: T) =>
  events.filter((e): e is Extract<CodexEvent, { type: T }> => e.type === type);

function parse(text: string, parser: AgentEventParser = createGeminiCliEventParser()) {
  const events = [...parser.push(text), ...parser.end()];
  return { events, state: parser.state() };
}

describe("Gemini CLI stream-json parser on real output", () => {
  it.each(FIXTURES)("maps every line of %s to a typed, versioned event, none raw", (name) => {
    const { events } = parse(fixture(name));
    expect(events.length).toBeGreaterThan(2);
    for (const event of events) expect(codexEventSchema.parse(event)).toEqual(event);
    expect(ofType(events, "raw")).toEqual([]);
  });

  it("reads a whole run: session, commands and their output, the message, usage with thinking", () => {
    const { events, state } = parse(fixture("fix-all"));
    expect(events.slice(0, 2)).toEqual([
      { v: 1, type: "thread.started", threadId: "a94d72b6-0ef0-4bee-985a-7491ed2dc193" },
      { v: 1, type: "turn.started" },
    ]);
    const commands = ofType(events, "command.finished");
    expect(commands.map((c) => [c.command.slice(0, 11), c.status])).toEqual([
      ["ls src test", "completed"],
      ["mkdir -p --", "completed"],
      ["node --test", "completed"],
    ]);
    // Gemini CLI's tool results carry no exit code: unknown rather than a guessed 0
    expect(commands.map((c) => c.exitCode)).toEqual([null, null, null]);
    expect(commands[0]?.outputTail).toBe("src:\ncalendar.js\n\ntest:\ncalendar.test.js");
    expect(ofType(events, "agent.message")).toHaveLength(1);
    expect(state.lastAgentMessage).toMatch(/^I implemented all eight functions/);
    // calendar-fix-all: 4 responses of 12,000 input (3,000 cached), 1,800 output of which 600 thinking
    const usage = { inputTokens: 48_000, cachedInputTokens: 12_000, outputTokens: 7_200, reasoningTokens: 2_400 };
    expect(ofType(events, "token.usage")).toEqual([{ v: 1, type: "token.usage", thread: usage, run: usage }]);
    expect(geminiCliHarness.outcome({ state, exit: { exitCode: 0 } })).toMatchObject({ status: "succeeded" });
  });

  it("joins a message's streamed chunks; reads file tools; a resumed session keeps its id", () => {
    const first = parse(fixture("file-tools"));
    expect(ofType(first.events, "agent.message").map((m) => m.text)).toEqual(["Done: wrote hello.txt."]);
    expect(ofType(first.events, "file.changed")).toEqual([
      expect.objectContaining({ status: "completed", changes: [{ path: "hello.txt", kind: "add" }] }),
      expect.objectContaining({ status: "completed", changes: [{ path: "/tmp/rec/gw/hello.txt", kind: "update" }] }),
    ]);
    expect(ofType(first.events, "command.finished")).toEqual([
      expect.objectContaining({ command: "cat hello.txt; exit 3", outputTail: "hello" }),
    ]);
    const resumed = parse(
      fixture("file-tools-resume"),
      createGeminiCliEventParser({ threadUsageBefore: first.state.threadUsage }),
    );
    expect(resumed.state.threadId).toBe(first.state.threadId);
    expect(resumed.state.runUsage).toEqual({
      inputTokens: 100,
      cachedInputTokens: 20,
      outputTokens: 13,
      reasoningTokens: 3,
    });
    expect(resumed.state.threadUsage.inputTokens).toBe(first.state.threadUsage.inputTokens + 100);
    expect(resumed.state.lastAgentMessage).toBe("Second turn reply.");
  });

  it("reads the exit code Gemini CLI words for a failing command without output", () => {
    const lines = [
      '{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"exit 4"}}',
      '{"type":"tool_result","tool_id":"t1","status":"success","output":"Command exited with code: 4"}',
    ];
    expect(ofType(parse(lines.join("\n")).events, "command.finished")).toEqual([
      expect.objectContaining({ itemId: "t1", command: "exit 4", exitCode: 4, status: "completed" }),
    ]);
  });

  it.each([
    ["http-500", /500/],
    ["http-400", /400/],
    ["cut-stream", /terminated/],
  ])("turns %s into a failed outcome with Gemini CLI's reason", (name, reason) => {
    const { events, state } = parse(fixture(name));
    expect(ofType(events, "turn.failed")[0]?.message).toMatch(reason);
    const outcome = geminiCliHarness.outcome({ state, exit: { exitCode: 1 } });
    expect(outcome).toMatchObject({ status: "failed", threadId: state.threadId });
    expect(outcome.status !== "succeeded" && outcome.reason).toMatch(reason);
  });

  it("gives the same events however the bytes are chunked, and never throws on odd lines", () => {
    const text = fixture("fix-all") + fixture("file-tools");
    const whole = parse(text).events;
    const bytes = Buffer.from(text, "utf8");
    for (const size of [1, 3, 64, 1000]) {
      const parser = createGeminiCliEventParser();
      const events: CodexEvent[] = [];
      for (let at = 0; at < bytes.length; at += size) events.push(...parser.push(bytes.subarray(at, at + size)));
      events.push(...parser.end());
      expect(events).toEqual(whole);
    }
    const odd = [
      "Loaded cached credentials.",
      "null",
      '{"type":"init"}',
      '{"type":"error","severity":"warning","message":"slow"}',
      '{"type":"message","role":"assistant","content":"cut","delta":true}',
      '{"type":"x"}',
    ];
    const { events } = parse(odd.join("\n"));
    expect(events.map((e) => (e.type === "raw" ? e.reason : e.type))).toEqual([
      "not-json",
      "unknown-type",
      "unexpected-shape",
      "error",
      "agent.message", // closed by the next line, even one it does not know
      "unknown-type",
    ]);
  });
});
