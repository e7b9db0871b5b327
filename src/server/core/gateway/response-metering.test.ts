import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockModel, type MockModelRequest, type MockModelServer } from "../mock-model/mock-model-server";
import type { MockScriptInput } from "../mock-model/mock-script";
import { startModelGateway, type ModelGateway } from "./model-gateway";

/**
 * Every answer to a model request is metered, whatever its shape (issue 23, point 4): a non-streamed
 * JSON response and a compaction by their `usage`, a stream cut before its usage by an estimate; a
 * background response is refused before it reaches the provider, and an answer whose tokens cannot be
 * counted is withheld. Budgets stop these shapes as they stop streams.
 */
const KEY = "sk-test-METERING-123";
const USAGE = { inputTokens: 1800, cachedInputTokens: 600, outputTokens: 200, reasoningTokens: 50 };
const DONE: MockScriptInput = { steps: [{ kind: "reply", text: "done" }], usage: USAGE };

const post = (options: { url: string; token: string; path?: string; body: unknown }) =>
  fetch(`${options.url}${options.path ?? "/responses"}`, {
    method: "POST",
    headers: { authorization: `Bearer ${options.token}`, "content-type": "application/json" },
    body: JSON.stringify(options.body),
  });

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

describe("metering answers that are not event streams", () => {
  let mock: MockModelServer;
  let gateway: ModelGateway;
  const seen: MockModelRequest[] = [];
  const exceeded: { runId: string; usedTokens: number; budgetTokens: number }[] = [];

  beforeAll(async () => {
    mock = await startMockModel({ scripts: { done: DONE }, apiKey: KEY, onRequest: (r) => seen.push(r) });
    gateway = await startModelGateway({
      upstreamBaseUrl: mock.url,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
      onBudgetExceeded: (event) => exceeded.push(event),
    });
  });
  afterAll(async () => {
    await gateway.close();
    await mock.close();
  });

  it("meters ten `stream: false` requests and refuses them at the budget (3,000 tokens, 2,000 each)", async () => {
    const token = gateway.issueRunToken({ runId: "json", budgetTokens: 3_000 });
    const answers: { status: number; body: { usage?: unknown; error?: { type: string; message: string } } }[] = [];
    for (let i = 0; i < 10; i++) {
      const res = await post({ url: gateway.url, token, body: { model: "done", stream: false, input: [] } });
      answers.push({ status: res.status, body: (await res.json()) as (typeof answers)[number]["body"] });
    }
    expect(answers.map((a) => a.status)).toEqual([200, 200, 429, 429, 429, 429, 429, 429, 429, 429]);
    expect(answers[0]?.body.usage).toMatchObject({ input_tokens: 1800, output_tokens: 200 }); // relayed as it came
    expect(answers[2]?.body.error).toMatchObject({
      type: "token_budget_exceeded",
      message:
        "Run json has used 4000 tokens, reaching its budget of 3000; the model gateway accepts no more requests for it.",
    });
    expect(gateway.usage("json")).toEqual({
      inputTokens: 3600,
      cachedInputTokens: 1200,
      outputTokens: 400,
      reasoningTokens: 100,
    });
    expect(gateway.budgetReached("json")).toBe(true);
    expect(gateway.reportedModel("json")).toBe("done");
    expect(exceeded).toEqual([{ runId: "json", usedTokens: 4000, budgetTokens: 3000 }]);
    expect(seen.filter((r) => r.model === "done")).toHaveLength(2); // the refused ones never left
  });

  it("refuses `background: true` before it reaches the provider, streamed or not, and says why", async () => {
    const token = gateway.issueRunToken({ runId: "background", budgetTokens: 3_000 });
    const before = seen.length;
    for (const stream of [false, true]) {
      const res = await post({ url: gateway.url, token, body: { model: "done", stream, background: true, input: [] } });
      expect(res.status).toBe(400);
      const { error } = (await res.json()) as { error: { type: string; message: string } };
      expect(error.type).toBe("background_not_allowed");
      expect(error.message).toContain("`background: true` runs the response on the provider after the connection ends");
    }
    // `background: false` is the ordinary request, and is metered
    const plain = await post({ url: gateway.url, token, body: { model: "done", stream: false, background: false } });
    expect(plain.status).toBe(200);
    expect(seen.length - before).toBe(1);
    expect(gateway.usage("background")?.inputTokens).toBe(1800);
    expect(gateway.lastUpstreamError("background")).toMatch(/^refused a request: .*background/);
  });
});

describe("answers the gateway cannot meter", () => {
  const servers: http.Server[] = [];
  const gateways: ModelGateway[] = [];
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    for (const server of servers) {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  async function gatewayFor(handler: http.RequestListener) {
    const upstream = await listen(handler);
    servers.push(upstream.server);
    const logs: string[] = [];
    const gateway = await startModelGateway({
      upstreamBaseUrl: upstream.url,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
      log: (line) => logs.push(line),
    });
    gateways.push(gateway);
    return { gateway, logs };
  }

  it("withholds a successful answer without usage (502 unmetered_response) and charges an estimate", async () => {
    const answers: Record<string, { type: string; body: string }> = {
      "/v1/responses": { type: "application/json", body: '{"id":"resp_1","status":"queued","usage":null}' },
      "/v1/responses/compact": { type: "text/plain", body: "compacted" },
    };
    const { gateway, logs } = await gatewayFor((req, res) => {
      const answer = answers[req.url ?? ""]!;
      res.writeHead(200, { "content-type": answer.type });
      res.end(answer.body);
    });
    const token = gateway.issueRunToken({ runId: "u", budgetTokens: 1_000_000 });
    const body = { model: "m", input: "x".repeat(3996) };
    const queued = await post({ url: gateway.url, token, body });
    expect(queued.status).toBe(502);
    const { error } = (await queued.json()) as { error: { type: string; message: string } };
    expect(error.type).toBe("unmetered_response");
    expect(error.message).toContain('cannot meter its tokens: it reports no token usage (status "queued")');
    const compact = await post({ url: gateway.url, token, path: "/responses/compact", body });
    expect(compact.status).toBe(502);
    expect(await compact.text()).toContain("its body is not JSON (nor an event stream)");
    // a token per 4 bytes: the request twice, and what each answer brought
    const tokens = (text: string) => Math.ceil(Buffer.byteLength(text) / 4);
    expect(gateway.usage("u")).toMatchObject({
      inputTokens: 2 * tokens(JSON.stringify(body)),
      outputTokens: tokens(answers["/v1/responses"]!.body) + tokens("compacted"),
    });
    expect(gateway.lastUpstreamError("u")).toBe("refused a response: its body is not JSON (nor an event stream)");
    expect(logs.filter((line) => line.includes("charged an estimate"))).toHaveLength(2);
  });

  it("charges an estimate for a stream cut before its usage: by the client, by the upstream, or ending without it", async () => {
    const { gateway } = await gatewayFor((req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"type":"response.output_text.delta","delta":"1234"}\n\n'); // 60 bytes: 15 tokens
      if (req.url?.endsWith("?cut")) setImmediate(() => res.destroy());
      else if (req.url?.endsWith("?plain")) res.end();
      // else: never finishes, until the client goes away
    });
    const body = { model: "m", input: "y".repeat(376) }; // 400 bytes: 100 tokens
    for (const [run, query] of [
      ["client", ""],
      ["upstream", "?cut"],
      ["plain", "?plain"],
    ] as const) {
      const token = gateway.issueRunToken({ runId: run });
      const controller = new AbortController();
      const res = await fetch(`${gateway.url}/responses${query}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      await reader.read(); // the first event arrived
      if (run === "client") controller.abort();
      else await reader.read().catch(() => undefined);
      await expect
        .poll(() => gateway.usage(run), { timeout: 5_000 })
        .toEqual({ inputTokens: 100, cachedInputTokens: 0, outputTokens: 15, reasoningTokens: 0 });
    }
  });

  it("relays GET /v1/models unmetered: listing models spends no tokens", async () => {
    const { gateway } = await gatewayFor((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"data":[{"id":"m"}]}');
    });
    const token = gateway.issueRunToken({ runId: "models" });
    const res = await fetch(`${gateway.url}/models`, { headers: { authorization: `Bearer ${token}` } });
    expect(await res.text()).toBe('{"data":[{"id":"m"}]}');
    expect(gateway.usage("models")).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    });
  });
});
