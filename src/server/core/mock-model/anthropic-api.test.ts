import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockScriptInput } from "./mock-script";
import { startMockModel, type MockModelRequest, type MockModelServer } from "./mock-model-server";

const SHIPPED = path.resolve(import.meta.dirname, "..", "..", "..", "..", "mock-scripts");
const KEY = "sk-ant-mock-RECOGNISABLE";
// Bash as Claude Code declares it (other tools omitted)
const BASH = {
  name: "Bash",
  description: "Executes a bash command",
  input_schema: { type: "object", properties: { command: { type: "string" }, description: { type: "string" } } },
};

interface AnthropicEvent {
  event: string;
  type: string;
  [key: string]: unknown;
}

/** Parses an Anthropic event stream, checking each block's `event:` line names its data's `type`. */
function parseAnthropicSse(text: string): AnthropicEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const [eventLine, dataLine, ...rest] = block.split("\n");
      expect(rest).toEqual([]);
      const event = eventLine!.replace(/^event: /, "");
      const data = JSON.parse(dataLine!.replace(/^data: /, "")) as { type: string };
      expect(data.type).toBe(event);
      return { event, ...data };
    });
}

const scripts: Record<string, MockScriptInput> = {
  steps: {
    usage: { inputTokens: 110, cachedInputTokens: 30, outputTokens: 50, reasoningTokens: 20 },
    steps: [
      { kind: "run", command: "ls -la", reasoning: "Look first." },
      { kind: "write-file", path: "dir/a b.txt", content: "it's\n$HOME `x` \\n\u00e9" },
      { kind: "reply", text: "ab", repeat: 3, deltaChars: 4, usage: { inputTokens: 7, outputTokens: 2 } },
    ],
  },
  teapot: { steps: [{ kind: "fail", status: 418, message: "I am a teapot." }] },
  overloaded: { steps: [{ kind: "fail", status: 529, message: "Busy." }] },
  reset: { steps: [{ kind: "cut", mode: "reset", partialText: "half" }] },
  close: { steps: [{ kind: "cut", mode: "close", partialText: "half" }] },
};

const user = (text: string) => ({ role: "user", content: [{ type: "text", text }] });
const toolUse = { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: {} }] };
const toolResult = { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: "ok" }] };

describe("mock model: Anthropic Messages API", () => {
  let mock: MockModelServer;
  const seen: MockModelRequest[] = [];
  beforeAll(async () => {
    mock = await startMockModel({ scriptsDir: SHIPPED, scripts, apiKey: KEY, onRequest: (r) => seen.push(r) });
  });
  afterAll(() => mock.close());

  const post = (body: unknown, headers: Record<string, string> = { "x-api-key": KEY }, suffix = "?beta=true") =>
    fetch(`${mock.rootUrl}/v1/messages${suffix}`, {
      method: "POST",
      headers: { "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
      body: JSON.stringify(body),
    });
  const stream = async (body: Record<string, unknown>) => {
    const response = await post({ max_tokens: 1000, tools: [BASH], stream: true, ...body });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    return parseAnthropicSse(await response.text());
  };

  it("streams a shell step as a Bash tool_use, after a thinking block when thinking is on", async () => {
    const events = await stream({ model: "steps", messages: [user("go")], thinking: { type: "adaptive" } });
    expect(events.map((e) => e.type)).toEqual([
      "message_start",
      "ping",
      ...["content_block_start", "content_block_delta", "content_block_delta", "content_block_stop"],
      ...["content_block_start", "content_block_delta", "content_block_stop"],
      "message_delta",
      "message_stop",
    ]);
    // input_tokens + cache reads = the script's inputTokens; output includes thinking
    expect(events[0]).toMatchObject({
      message: {
        role: "assistant",
        model: "steps",
        content: [],
        usage: { input_tokens: 80, cache_read_input_tokens: 30, cache_creation_input_tokens: 0 },
      },
    });
    expect(events[3]).toMatchObject({ index: 0, delta: { type: "thinking_delta", thinking: "Look first." } });
    expect(events[4]).toMatchObject({ index: 0, delta: { type: "signature_delta" } });
    expect(events[6]).toMatchObject({ index: 1, content_block: { type: "tool_use", name: "Bash", input: {} } });
    const json = (events[7] as unknown as { delta: { type: string; partial_json: string } }).delta;
    expect(json.type).toBe("input_json_delta");
    expect(JSON.parse(json.partial_json)).toEqual({ command: "ls -la", description: expect.any(String) as unknown });
    expect(events.at(-2)).toMatchObject({ delta: { stop_reason: "tool_use" }, usage: { output_tokens: 50 } });
    expect(seen.at(-1)).toMatchObject({ api: "anthropic", model: "steps", stepIndex: 0 });
  });

  it("leaves the thinking out when the request did not turn it on", async () => {
    const events = await stream({ model: "steps", messages: [user("go")] });
    expect(events.some((e) => JSON.stringify(e).includes("thinking"))).toBe(false);
    const disabled = await stream({ model: "steps", messages: [user("go")], thinking: { type: "disabled" } });
    expect(disabled.filter((e) => e.type === "content_block_start")).toHaveLength(1);
  });

  it("derives the step from the conversation and writes files byte for byte through Bash", async () => {
    // Claude Code sends a thinking block and its tool_use as one message or two: the count is the same
    const split = [{ role: "assistant", content: [{ type: "thinking", thinking: "t", signature: "s" }] }, toolUse];
    const events = await stream({ model: "steps", messages: [user("go"), ...split, toolResult] });
    expect(seen.at(-1)?.stepIndex).toBe(1);
    const input = JSON.parse(
      events.flatMap((e) =>
        e.type === "content_block_delta" ? [(e.delta as { partial_json: string }).partial_json] : [],
      )[0]!,
    ) as { command: string };
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-anthropic-"));
    try {
      execFileSync("bash", ["-c", input.command], { cwd: dir });
      expect(fs.readFileSync(path.join(dir, "dir/a b.txt"), "utf8")).toBe("it's\n$HOME `x` \\n\u00e9");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("streams a reply as text deltas of deltaChars, ending the turn; past the last step says the script ran out", async () => {
    const reply = await stream({ model: "steps", messages: [user("go"), toolUse, toolResult, toolUse, toolResult] });
    const deltas = reply.filter((e) => e.type === "content_block_delta").map((e) => e.delta);
    expect(deltas).toEqual([
      { type: "text_delta", text: "abab" },
      { type: "text_delta", text: "ab" },
    ]);
    expect(reply[0]).toMatchObject({ message: { usage: { input_tokens: 7, cache_read_input_tokens: 0 } } });
    expect(reply.at(-2)).toMatchObject({ delta: { stop_reason: "end_turn" }, usage: { output_tokens: 2 } });
    const done = { role: "assistant", content: [{ type: "text", text: "ababab" }] };
    const after = await stream({
      model: "steps",
      messages: [user("go"), toolUse, toolResult, toolUse, toolResult, done, user("more")],
    });
    expect(JSON.stringify(after)).toContain("has no more steps");
    expect(seen.at(-1)?.stepIndex).toBe(3);
  });

  it("answers one JSON message when stream is false or absent", async () => {
    const response = await post({
      model: "steps",
      max_tokens: 10,
      messages: [user("go")],
      tools: [BASH],
      thinking: { type: "enabled", budget_tokens: 1024 },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      type: "message",
      role: "assistant",
      stop_reason: "tool_use",
      content: [
        { type: "thinking", thinking: "Look first." },
        { type: "tool_use", name: "Bash", input: { command: "ls -la" } },
      ],
      usage: { input_tokens: 80, cache_read_input_tokens: 30, output_tokens: 50 },
    });
  });

  it("fails in Anthropic's error shape, and refuses a shell step without the Bash tool", async () => {
    const teapot = await post({ model: "teapot", messages: [user("go")], stream: true });
    expect(teapot.status).toBe(418);
    expect(await teapot.json()).toEqual({
      type: "error",
      error: { type: "invalid_request_error", message: "I am a teapot." },
    });
    const busy = await post({ model: "overloaded", messages: [user("go")] });
    expect(busy.status).toBe(529);
    expect(await busy.json()).toMatchObject({ type: "error", error: { type: "overloaded_error" } });
    const http500 = await post({ model: "http-500", messages: [user("go")] });
    expect(http500.status).toBe(500);
    expect(await http500.json()).toMatchObject({ type: "error", error: { type: "api_error" } });
    const noBash = await post({ model: "steps", messages: [user("go")], tools: [] });
    expect(noBash.status).toBe(400);
    expect(((await noBash.json()) as { error: { message: string } }).error.message).toMatch(/needs the Bash tool/);
    const unknown = await post({ model: "nope", messages: [] });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({
      type: "error",
      error: { type: "not_found_error", message: expect.stringMatching(/No mock script is named "nope"/) as unknown },
    });
    const invalid = await post({ messages: [] });
    expect(invalid.status).toBe(400);
    expect(await invalid.json()).toMatchObject({
      error: { message: expect.stringMatching(/^Not a Messages API request: model/) as unknown },
    });
  });

  it("cuts a stream two ways: dropped, or ended before message_stop", async () => {
    const reset = await post({ model: "reset", messages: [user("go")], stream: true });
    expect(reset.status).toBe(200);
    await expect(reset.text()).rejects.toThrow();
    const closed = parseAnthropicSse(
      await (await post({ model: "close", messages: [user("go")], stream: true })).text(),
    );
    expect(closed.map((e) => e.type)).toEqual(["message_start", "ping", "content_block_start", "content_block_delta"]);
  });

  it("checks the API key as x-api-key or a bearer token, answering 401 in Anthropic's shape", async () => {
    const body = { model: "teapot", messages: [user("go")] };
    const missing = await post(body, {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    expect((await post(body, { "x-api-key": "sk-wrong" })).status).toBe(401);
    expect((await post(body, { authorization: `Bearer ${KEY}` })).status).toBe(418);
    expect((await post(body, { "x-api-key": KEY }, "")).status).toBe(418);
  });

  it("counts tokens roughly, and only takes POST", async () => {
    const count = await fetch(`${mock.rootUrl}/v1/messages/count_tokens?beta=true`, {
      method: "POST",
      headers: { "x-api-key": KEY },
      body: JSON.stringify({ model: "steps", messages: [user("x".repeat(400))] }),
    });
    expect(count.status).toBe(200);
    const { input_tokens } = (await count.json()) as { input_tokens: number };
    expect(input_tokens).toBeGreaterThanOrEqual(100);
    expect(input_tokens).toBeLessThan(200);
    const get = await fetch(`${mock.rootUrl}/v1/messages`, { headers: { "x-api-key": KEY } });
    expect(get.status).toBe(405);
    expect(await get.json()).toMatchObject({ type: "error" });
  });
});
