import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir, REPO_ROOT } from "../../../../test/support/temp";
import { isAppError } from "../errors/app-error";
import { listMockScripts, readMockScript, type MockScriptInput } from "./mock-script";
import { startMockModel, type MockModelRequest, type MockModelServer } from "./mock-model-server";
import { writeFileCommand } from "./responses-request";

const SHIPPED = path.join(REPO_ROOT, "mock-scripts");

// Tool declarations in the shapes Codex 0.171 sends (exec_command declares `login`); the other two as older Codex versions did.
const EXEC_COMMAND = {
  type: "function",
  name: "exec_command",
  parameters: { type: "object", properties: { cmd: { type: "string" }, login: { type: "boolean" } } },
};
const SHELL_COMMAND = {
  type: "function",
  name: "shell_command",
  parameters: { type: "object", properties: { command: { type: "string" } } },
};
const SHELL = {
  type: "function",
  name: "shell",
  parameters: { type: "object", properties: { command: { type: "array" } } },
};

interface SseEvent {
  type: string;
  [key: string]: unknown;
}

function parseSse(text: string): SseEvent[] {
  return text
    .split("\n\n")
    .filter((block) => block.trim())
    .map((block) => {
      const data = block.split("\n").find((line) => line.startsWith("data: "));
      return JSON.parse(data!.slice(6)) as SseEvent;
    });
}

const scripts: Record<string, MockScriptInput> = {
  flaky: { alternate: ["steady"], steps: [{ kind: "reply", text: "first kind" }] },
  steady: {
    steps: [
      { kind: "reply", text: "second kind" },
      { kind: "reply", text: "second kind, later" },
    ],
  },
  steps: {
    usage: { inputTokens: 11, cachedInputTokens: 3, outputTokens: 5, reasoningTokens: 2 },
    steps: [
      { kind: "run", command: "ls -la", reasoning: "Look first." },
      { kind: "write-file", path: "dir/a b.txt", content: "x" },
      { kind: "reply", text: "done", usage: { inputTokens: 1, outputTokens: 1 } },
      { kind: "run", command: "second turn" },
    ],
  },
  shell: { steps: [{ kind: "run", command: "echo hi", tool: "shell", login: true }] },
  teapot: { steps: [{ kind: "fail", status: 418, message: "I am a teapot." }] },
  reset: { steps: [{ kind: "cut", mode: "reset", partialText: "half" }] },
  close: { steps: [{ kind: "cut", mode: "close" }] },
  thinking: {
    thinkMs: 400,
    steps: [
      { kind: "reply", text: "after a while" },
      { kind: "reply", text: "at once", thinkMs: 0 },
    ],
  },
};

describe("mock model over HTTP", () => {
  let mock: MockModelServer;
  const seen: MockModelRequest[] = [];
  beforeAll(async () => {
    mock = await startMockModel({ scriptsDir: SHIPPED, scripts, onRequest: (request) => seen.push(request) });
  });
  afterAll(() => mock.close());

  const post = (body: unknown, init: RequestInit = {}) =>
    fetch(`${mock.url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
      ...init,
    });
  const ask = async (model: string, input: unknown[] = [], tools: unknown[] = [EXEC_COMMAND]) => {
    const response = await post({ model, stream: true, input, tools });
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    return parseSse(await response.text());
  };
  const doneItems = (events: SseEvent[]) =>
    events.filter((e) => e.type === "response.output_item.done").map((e) => e.item as Record<string, unknown>);

  it("alternates a script's conversations with its `alternate` scripts, each conversation keeping its own", async () => {
    const text = (events: SseEvent[]) =>
      events.flatMap((e) => (e.type === "response.output_text.done" ? [e.text as string] : [])).join("");
    const say = async (key: string | null, input: unknown[] = []) => {
      const response = await post({ model: "flaky", stream: true, input, ...(key ? { prompt_cache_key: key } : {}) });
      return response.status === 200 ? text(parseSse(await response.text())) : `HTTP ${response.status}`;
    };
    expect(await say("conversation-1")).toBe("first kind");
    expect(await say("conversation-2")).toBe("second kind");
    expect(await say("conversation-3")).toBe("first kind");
    // a later request of conversation 2 goes on with the script it got
    expect(await say("conversation-2", [{ type: "message", role: "assistant", content: [] }])).toBe(
      "second kind, later",
    );
    expect(await say(null)).toBe("HTTP 400");
  });

  it("binds loopback and answers only POST /v1/responses", async () => {
    expect(mock.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    expect(`${mock.rootUrl}/v1`).toBe(mock.url);
    const other = await fetch(`${mock.url}/models`);
    expect(other.status).toBe(404);
    expect(((await other.json()) as { error: { message: string } }).error.message).toMatch(/only POST \/v1\/responses/);
    expect((await fetch(`${mock.url}/responses`)).status).toBe(405);
    expect((await post("not an object")).status).toBe(400);
    const unknown = await post({ model: "nope", input: [] });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: { message: string } }).error.message).toMatch(
      /No mock script is named "nope"\. Available: .*hello/,
    );
  });

  it("answers a shell step with a function_call to the offered tool, in Codex's argument shapes", async () => {
    const events = await ask("steps");
    expect(events.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.output_item.done",
      "response.output_item.added",
      "response.output_item.done",
      "response.completed",
    ]);
    const [reasoning, call] = doneItems(events);
    expect(reasoning).toMatchObject({ type: "reasoning", summary: [{ type: "summary_text", text: "Look first." }] });
    expect(call).toMatchObject({ type: "function_call", name: "exec_command" });
    expect(JSON.parse(call!.arguments as string)).toEqual({ cmd: "ls -la", login: false });
    expect(events.at(-1)).toMatchObject({
      response: {
        status: "completed",
        usage: {
          input_tokens: 11,
          input_tokens_details: { cached_tokens: 3 },
          output_tokens: 5,
          output_tokens_details: { reasoning_tokens: 2 },
          total_tokens: 16,
        },
      },
    });

    const [viaShellCommand] = doneItems(await ask("steps", [], [SHELL_COMMAND, SHELL])).filter(
      (i) => i.type === "function_call",
    );
    expect(viaShellCommand).toMatchObject({ name: "shell_command" });
    expect(JSON.parse(viaShellCommand!.arguments as string)).toEqual({ command: "ls -la" });
    const [viaShell] = doneItems(await ask("shell", [], [EXEC_COMMAND, SHELL]));
    expect(JSON.parse(viaShell!.arguments as string)).toEqual({ command: ["bash", "-lc", "echo hi"] });

    const none = await post({ model: "steps", input: [], tools: [{ type: "function", name: "view_image" }] });
    expect(none.status).toBe(400);
    expect(await none.text()).toMatch(/needs a shell tool .* the request offers none/);
  });

  it("derives the step from the conversation: tool outputs and assistant messages so far", async () => {
    const call = (n: number) => [
      { type: "function_call", call_id: `c${n}`, name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: `c${n}`, output: "ok" },
    ];
    const user = { type: "message", role: "user", content: [{ type: "input_text", text: "go" }] };
    const write = doneItems(await ask("steps", [user, ...call(1)]))[0]!;
    expect(JSON.parse(write.arguments as string)).toEqual({
      cmd: `mkdir -p -- 'dir' && printf '%s' 'x' > 'dir/a b.txt'`,
      login: false,
    });
    const reply = await ask("steps", [user, ...call(1), ...call(2)]);
    expect(doneItems(reply)[0]).toMatchObject({
      type: "message",
      role: "assistant",
      content: [{ type: "output_text", text: "done" }],
    });
    expect(reply.at(-1)).toMatchObject({
      response: { usage: { input_tokens: 1, output_tokens: 1, input_tokens_details: { cached_tokens: 0 } } },
    });
    // A resumed thread: the earlier reply is in the input, so the script goes on with its next step.
    const assistant = { type: "message", role: "assistant", content: [{ type: "output_text", text: "done" }] };
    const resumed = doneItems(await ask("steps", [user, ...call(1), ...call(2), assistant, user]))[0]!;
    expect(JSON.parse(resumed.arguments as string)).toMatchObject({ cmd: "second turn" });
    const past = doneItems(await ask("steps", [...call(1), ...call(2), assistant, ...call(3)]))[0]!;
    expect(past).toMatchObject({
      type: "message",
      content: [{ text: '(The mock script "steps" has no more steps.)' }],
    });
    expect(seen.filter((r) => r.model === "steps").map((r) => r.stepIndex)).toContain(4);
  });

  it("streams large replies as text deltas", async () => {
    const events = await ask("big-response");
    const deltas = events.filter((e) => e.type === "response.output_text.delta");
    expect(deltas).toHaveLength(64);
    expect(deltas.map((e) => e.delta as string).join("")).toHaveLength(256 * 1024);
    expect(doneItems(events)[0]).toMatchObject({ type: "message", status: "completed" });
    const bytes = (await (await post({ model: "big-response", input: [] })).arrayBuffer()).byteLength;
    expect(bytes).toBeGreaterThan(1_000_000);
    expect(bytes).toBeLessThan(1_200_000);
  });

  it("fails with the scripted HTTP status and cuts streams two ways", async () => {
    const teapot = await post({ model: "teapot", input: [] });
    expect(teapot.status).toBe(418);
    expect(await teapot.json()).toMatchObject({ error: { message: "I am a teapot." } });
    const http500 = await post({ model: "http-500", input: [] });
    expect(http500.status).toBe(500);

    const reset = await post({ model: "reset", input: [] });
    expect(reset.status).toBe(200);
    await expect(reset.text()).rejects.toThrow();

    const closed = parseSse(await (await post({ model: "close", input: [] })).text());
    expect(closed.map((e) => e.type)).toEqual([
      "response.created",
      "response.in_progress",
      "response.output_item.added",
      "response.output_text.delta",
    ]);
  });

  it("thinks for the scripted time before answering (the script's thinkMs, or a step's own)", async () => {
    const began = Date.now();
    const slow = await ask("thinking");
    expect(Date.now() - began).toBeGreaterThanOrEqual(400);
    expect(slow.find((event) => event.type === "response.output_text.delta")).toMatchObject({ delta: "after a while" });
    const quick = await ask("thinking", [{ type: "message", role: "assistant", content: [] }]);
    expect(quick.find((event) => event.type === "response.output_text.delta")).toMatchObject({ delta: "at once" });
  });

  it("ships valid scripts", () => {
    const names = listMockScripts(SHIPPED);
    expect(names).toEqual(expect.arrayContaining(["big-response", "cut-stream", "edit-file", "hello", "http-500"]));
    for (const name of names) expect(readMockScript({ dir: SHIPPED, name })?.steps.length).toBeGreaterThan(0);
    expect(readMockScript({ dir: SHIPPED, name: "../package" })).toBeNull();
  });
});

describe("mock model checks", () => {
  it("requires the configured API key when given one", async () => {
    const mock = await startMockModel({ scripts, apiKey: "sk-test-RECOGNISABLE-123" });
    try {
      const ask = (authorization?: string) =>
        fetch(`${mock.url}/responses`, {
          method: "POST",
          headers: authorization ? { authorization } : {},
          body: JSON.stringify({ model: "teapot", input: [] }),
        });
      expect((await ask()).status).toBe(401);
      expect((await ask("Bearer sk-wrong")).status).toBe(401);
      expect((await ask("Bearer sk-test-RECOGNISABLE-123")).status).toBe(418);
    } finally {
      await mock.close();
    }
  });

  it("refuses invalid scripts with the field at fault", async () => {
    await expect(
      startMockModel({ scripts: { bad: { steps: [{ kind: "reply" }] } as unknown as MockScriptInput } }),
    ).rejects.toSatisfy(
      (error) => isAppError(error) && /Mock script "bad" is invalid: steps\.0\.text/.test(error.message),
    );
    const dir = tempDir("mock-scripts");
    fs.writeFileSync(path.join(dir, "broken.json"), "{");
    expect(() => readMockScript({ dir, name: "broken" })).toThrow(/not valid JSON/);
  });

  it("writes files byte for byte through a shell command, whatever the content", () => {
    const dir = tempDir("mock-write");
    const content = `it's "quoted" \\ back\\slash $HOME $(touch pwned) \`touch pwned\` %s %d\n\ttab ünïcødé ✓ '' '\\'' \n\n`;
    const command = writeFileCommand({ path: "deep/er/it's here.txt", content });
    execFileSync("bash", ["-c", command], { cwd: dir });
    execFileSync("sh", ["-c", writeFileCommand({ path: "flat.txt", content })], { cwd: dir });
    expect(fs.readFileSync(path.join(dir, "deep/er/it's here.txt"), "utf8")).toBe(content);
    expect(fs.readFileSync(path.join(dir, "flat.txt"), "utf8")).toBe(content);
    expect(fs.existsSync(path.join(dir, "pwned"))).toBe(false);
  });
});
