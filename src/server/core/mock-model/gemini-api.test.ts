import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockScriptInput } from "./mock-script";
import { startMockModel, type MockModelRequest, type MockModelServer } from "./mock-model-server";

const SHIPPED = path.resolve(import.meta.dirname, "..", "..", "..", "..", "mock-scripts");
const KEY = "gm-mock-RECOGNISABLE";
// run_shell_command as Gemini CLI declares it (other functions omitted)
const TOOLS = [
  {
    functionDeclarations: [
      { name: "read_file", parametersJsonSchema: { type: "object" } },
      { name: "run_shell_command", parametersJsonSchema: { type: "object", properties: { command: {} } } },
    ],
  },
];

interface Chunk {
  candidates: { content: { role: string; parts: Record<string, unknown>[] }; finishReason?: string }[];
  usageMetadata?: Record<string, number>;
}

/** Parses `alt=sse` output: every event is one `data: {json}` line. */
function parseGeminiSse(text: string): Chunk[] {
  return text
    .split("\r\n\r\n")
    .filter((block) => block.trim())
    .map((block) => {
      expect(block.startsWith("data: ")).toBe(true);
      return JSON.parse(block.slice("data: ".length)) as Chunk;
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
  teapot: { steps: [{ kind: "fail", status: 429, message: "Slow down." }] },
  reset: { steps: [{ kind: "cut", mode: "reset", partialText: "half" }] },
  close: { steps: [{ kind: "cut", mode: "close", partialText: "half" }] },
  flaky: { alternate: ["steps"], steps: [{ kind: "reply", text: "x" }] },
};

const user = (text: string) => ({ role: "user", parts: [{ text }] });
// Gemini CLI keeps a functionCall turn without its thought, with a thoughtSignature
const call = {
  role: "model",
  parts: [{ functionCall: { name: "run_shell_command", args: {} }, thoughtSignature: "s" }],
};
const result = { role: "user", parts: [{ functionResponse: { name: "run_shell_command", response: {} } }] };
const thinking = { thinkingConfig: { includeThoughts: true } };

describe("mock model: Gemini API", () => {
  let mock: MockModelServer;
  const seen: MockModelRequest[] = [];
  const paths: string[] = [];
  beforeAll(async () => {
    mock = await startMockModel({
      scriptsDir: SHIPPED,
      scripts,
      apiKey: KEY,
      onRequest: (r) => seen.push(r),
      onHttpRequest: (r) => paths.push(r.url),
    });
  });
  afterAll(() => mock.close());

  const post = (
    model: string,
    method: string,
    body: unknown,
    headers: Record<string, string> = { "x-goog-api-key": KEY },
  ) =>
    fetch(`${mock.rootUrl}/v1beta/models/${model}:${method}`, {
      method: "POST",
      headers: { "content-type": "application/json", "accept-encoding": "gzip, deflate", ...headers },
      body: JSON.stringify(body),
    });
  const stream = async (model: string, body: Record<string, unknown>) => {
    const response = await post(model, "streamGenerateContent?alt=sse", { tools: TOOLS, ...body });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(response.headers.get("content-encoding")).toBeNull();
    return parseGeminiSse(await response.text());
  };
  const parts = (chunks: Chunk[]) => chunks.flatMap((c) => c.candidates[0]!.content.parts);

  it("streams a shell step as a run_shell_command functionCall, after a thought when thoughts are asked for", async () => {
    const chunks = await stream("steps", { contents: [user("go")], generationConfig: thinking });
    expect(parts(chunks)).toEqual([
      { text: "Look first.", thought: true },
      {
        functionCall: {
          name: "run_shell_command",
          args: { command: "ls -la", description: expect.any(String) as unknown },
        },
      },
    ]);
    expect(chunks.map((c) => c.candidates[0]!.finishReason ?? null)).toEqual([null, "STOP"]);
    expect(chunks[0]!.usageMetadata).toBeUndefined();
    // prompt includes cached tokens; candidates + thoughts = the script's outputTokens
    expect(chunks[1]!.usageMetadata).toEqual({
      promptTokenCount: 110,
      cachedContentTokenCount: 30,
      candidatesTokenCount: 30,
      thoughtsTokenCount: 20,
      totalTokenCount: 160,
    });
    expect(seen.at(-1)).toMatchObject({ api: "gemini", model: "steps", stepIndex: 0 });
    const plain = await stream("steps", { contents: [user("go")] });
    expect(parts(plain).some((p) => p.thought)).toBe(false);
  });

  it("derives the step from the conversation and writes files byte for byte through the shell", async () => {
    const chunks = await stream("steps", { contents: [user("go"), call, result] });
    expect(seen.at(-1)?.stepIndex).toBe(1);
    const args = (parts(chunks)[0]!.functionCall as { args: { command: string } }).args;
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-gemini-"));
    try {
      execFileSync("bash", ["-c", args.command], { cwd: dir });
      expect(fs.readFileSync(path.join(dir, "dir/a b.txt"), "utf8")).toBe("it's\n$HOME `x` \\n\u00e9");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it("streams a reply as text parts of deltaChars, the last one with STOP and the usage", async () => {
    const chunks = await stream("steps", { contents: [user("go"), call, result, call, result] });
    expect(parts(chunks)).toEqual([{ text: "abab" }, { text: "ab" }]);
    expect(chunks[1]).toMatchObject({ candidates: [{ finishReason: "STOP" }], usageMetadata: { promptTokenCount: 7 } });
    // a reply turn counts once, however many parts it was kept in
    const replied = { role: "model", parts: [{ text: "abab" }, { text: "ab" }] };
    await stream("steps", { contents: [user("go"), call, result, call, result, replied, user("more")] });
    expect(seen.at(-1)?.stepIndex).toBe(3);
  });

  it("streams a JSON array without alt=sse, and answers generateContent with one response", async () => {
    const array = await post("steps", "streamGenerateContent", {
      contents: [user("go")],
      tools: TOOLS,
      generationConfig: thinking,
    });
    expect(array.headers.get("content-type")).toBe("application/json");
    const chunks = (await array.json()) as Chunk[];
    expect(chunks).toHaveLength(2);
    expect(chunks[1]).toMatchObject({
      candidates: [{ finishReason: "STOP" }],
      usageMetadata: { totalTokenCount: 160 },
    });
    const one = await post("steps", "generateContent", {
      contents: [user("go")],
      tools: TOOLS,
      generationConfig: thinking,
    });
    expect(await one.json()).toMatchObject({
      candidates: [
        {
          content: { role: "model", parts: [{ thought: true }, { functionCall: { args: { command: "ls -la" } } }] },
          finishReason: "STOP",
        },
      ],
      usageMetadata: { promptTokenCount: 110 },
    });
  });

  it("fails in Google's error shape, and refuses a shell step without run_shell_command", async () => {
    const limited = await post("teapot", "streamGenerateContent?alt=sse", { contents: [user("go")] });
    expect(limited.status).toBe(429);
    expect(await limited.json()).toEqual({ error: { code: 429, message: "Slow down.", status: "RESOURCE_EXHAUSTED" } });
    const http500 = await post("http-500", "generateContent", { contents: [user("go")] });
    expect(await http500.json()).toMatchObject({ error: { code: 500, status: "INTERNAL" } });
    const noShell = await post("steps", "generateContent", { contents: [user("go")] });
    expect(noShell.status).toBe(400);
    expect(await noShell.json()).toMatchObject({
      error: { status: "INVALID_ARGUMENT", message: expect.stringMatching(/run_shell_command/) as unknown },
    });
    const unknown = await post("nope", "generateContent", { contents: [] });
    expect(await unknown.json()).toMatchObject({
      error: { code: 404, status: "NOT_FOUND", message: expect.stringMatching(/"nope"/) as unknown },
    });
    expect((await post("steps", "embedContent", {})).status).toBe(404);
    // Gemini requests carry no conversation id, so an alternating script says why it cannot play
    const flaky = await post("flaky", "generateContent", { contents: [user("go")] });
    expect(await flaky.json()).toMatchObject({
      error: { code: 400, message: expect.stringMatching(/Gemini requests carry none/) as unknown },
    });
  });

  it("cuts a stream two ways: dropped, or ended without finishReason", async () => {
    const reset = await post("reset", "streamGenerateContent?alt=sse", { contents: [user("go")] });
    await expect(reset.text()).rejects.toThrow();
    const closed = await post("close", "streamGenerateContent?alt=sse", { contents: [user("go")] });
    const chunks = parseGeminiSse(await closed.text());
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ candidates: [{ content: { parts: [{ text: "half" }] } }] });
    expect(chunks[0]!.candidates[0]!.finishReason).toBeUndefined();
  });

  it("checks the API key as x-goog-api-key or ?key=, answering 401 in Google's shape; counts tokens", async () => {
    const body = { contents: [user("go")] };
    const missing = await post("teapot", "generateContent", body, {});
    expect(missing.status).toBe(401);
    expect(await missing.json()).toMatchObject({ error: { code: 401, status: "UNAUTHENTICATED" } });
    expect((await post("teapot", "generateContent", body, { "x-goog-api-key": "wrong" })).status).toBe(401);
    expect((await post("teapot", `generateContent?key=${KEY}`, body, {})).status).toBe(429);
    const count = await post("steps", "countTokens", { contents: [user("x".repeat(400))] });
    expect(((await count.json()) as { totalTokens: number }).totalTokens).toBeGreaterThanOrEqual(100);
    expect(paths).toContain("/v1beta/models/steps:countTokens");
  });
});
