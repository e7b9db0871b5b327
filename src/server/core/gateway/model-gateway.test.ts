import { createHash, randomBytes } from "node:crypto";
import http from "node:http";
import net, { type AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AppError } from "../errors/app-error";
import { startMockModel, type MockModelRequest, type MockModelServer } from "../mock-model/mock-model-server";
import type { MockScriptInput } from "../mock-model/mock-script";
import type { TokenUsage } from "../../../shared/token-usage";
import { startModelGateway, type ModelGateway, type ModelGatewayOptions } from "./model-gateway";
import { REPO_ROOT } from "../../../../test/support/temp";

const KEY = "sk-test-RECOGNISABLE-123";
const SHIPPED_SCRIPTS = path.join(REPO_ROOT, "mock-scripts");
const EXEC_COMMAND = {
  type: "function",
  name: "exec_command",
  parameters: { type: "object", properties: { cmd: { type: "string" } } },
};
/** A JSON answer with its usage: the gateway relays it once metered. */
const METERED_JSON = '{"ok":true,"usage":{"input_tokens":1,"output_tokens":2}}';
const scripts: Record<string, MockScriptInput> = {
  metered: {
    steps: [
      {
        kind: "run",
        command: "true",
        usage: { inputTokens: 1200, cachedInputTokens: 200, outputTokens: 30, reasoningTokens: 12 },
      },
      {
        kind: "reply",
        text: "done",
        usage: { inputTokens: 1300, cachedInputTokens: 1100, outputTokens: 8, reasoningTokens: 0 },
      },
    ],
  },
  budget: {
    usage: { inputTokens: 90, outputTokens: 10 },
    steps: [
      { kind: "run", command: "true" },
      { kind: "run", command: "true" },
      { kind: "reply", text: "done" },
    ],
  },
};

/** The conversation after `n` tool steps, as Codex would send it. */
function conversation(n: number): unknown[] {
  const input: unknown[] = [{ type: "message", role: "user", content: [{ type: "input_text", text: "go" }] }];
  for (let i = 0; i < n; i++)
    input.push(
      { type: "function_call", call_id: `c${i}`, name: "exec_command", arguments: "{}" },
      { type: "function_call_output", call_id: `c${i}`, output: "ok" },
    );
  return input;
}

async function listen(handler: http.RequestListener): Promise<{ server: http.Server; url: string }> {
  const server = http.createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1` };
}

function closeServer(server: http.Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`timed out: ${what}`)), ms)),
  ]);
}

describe("model gateway in front of the mock model", () => {
  let mock: MockModelServer;
  let gateway: ModelGateway;
  const seen: MockModelRequest[] = [];
  const logs: string[] = [];
  const usageEvents: { runId: string; usage: TokenUsage; total: TokenUsage }[] = [];
  const exceeded: { runId: string; usedTokens: number; budgetTokens: number }[] = [];

  beforeAll(async () => {
    mock = await startMockModel({
      scriptsDir: SHIPPED_SCRIPTS,
      scripts,
      apiKey: KEY,
      onRequest: (request) => seen.push(request),
    });
    gateway = await startModelGateway({
      upstreamBaseUrl: mock.url,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
      log: (line) => logs.push(line),
      onUsage: (event) => usageEvents.push(event),
      onBudgetExceeded: (event) => exceeded.push(event),
    });
  });
  afterAll(async () => {
    await gateway.close();
    await mock.close();
    expect(logs.join("\n")).not.toContain(KEY);
  });

  const ask = (token: string | null, body: unknown, extraHeaders: Record<string, string> = {}) =>
    fetch(`${gateway.url}/responses`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        ...(token === null ? {} : { authorization: `Bearer ${token}` }),
        ...extraHeaders,
      },
      body: JSON.stringify(body),
    });

  it("swaps the run token for the real key, and forwards the rest of the request", async () => {
    const token = gateway.issueRunToken({ runId: "swap" });
    expect(token).toMatch(/^iwrun_[A-Za-z0-9_-]{43}$/);
    expect(gateway.issueRunToken({ runId: "other" })).not.toBe(token);
    const response = await ask(
      token,
      { model: "hello", stream: true, input: [], tools: [EXEC_COMMAND] },
      { "session-id": "thread-1", cookie: "a=b" },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream");
    expect(await response.text()).toContain("response.completed");
    const request = seen.at(-1)!;
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.headers["session-id"]).toBe("thread-1");
    expect(request.headers.cookie).toBeUndefined();
    // The mock refuses anything but the real key, so the token alone gets nowhere.
    expect(
      (
        await fetch(`${mock.url}/responses`, {
          method: "POST",
          headers: { authorization: `Bearer ${token}` },
          body: "{}",
        })
      ).status,
    ).toBe(401);
  });

  it("answers 401 with a clear JSON error for a missing, malformed, unknown or revoked token", async () => {
    const before = seen.length;
    const body = { model: "hello", input: [] };
    const expectRefused = async (response: Response, type: string, message: RegExp) => {
      expect(response.status).toBe(401);
      expect(response.headers.get("content-type")).toBe("application/json");
      const json = (await response.json()) as { error: { type: string; message: string } };
      expect(json.error.type).toBe(type);
      expect(json.error.message).toMatch(message);
    };
    await expectRefused(await ask(null, body), "missing_run_token", /needs `Authorization: Bearer <run token>`/);
    await expectRefused(await ask(null, body, { authorization: "Basic abc" }), "missing_run_token", /has none/);
    await expectRefused(await ask("iwrun_made-up", body), "invalid_run_token", /unknown, or its run has ended/);
    await expectRefused(await ask(KEY, body), "invalid_run_token", /not valid/);
    const token = gateway.issueRunToken({ runId: "revoked" });
    gateway.revoke("revoked");
    await expectRefused(await ask(token, body), "invalid_run_token", /revoked/);
    // Re-issuing replaces the old token.
    const first = gateway.issueRunToken({ runId: "reissued" });
    const second = gateway.issueRunToken({ runId: "reissued" });
    await expectRefused(await ask(first, body), "invalid_run_token", /not valid/);
    expect((await ask(second, { model: "http-500", input: [] })).status).toBe(500);
    expect(seen.length).toBe(before + 1);
    // Unauthenticated requests learn nothing about paths; authenticated ones only reach the Responses and Models APIs.
    expect((await fetch(`${gateway.url}/files`)).status).toBe(401);
    const other = await fetch(`${gateway.url}/files`, { headers: { authorization: `Bearer ${second}` } });
    expect(other.status).toBe(404);
    expect(await other.text()).toMatch(
      /forwards only POST \/v1\/responses, POST \/v1\/responses\/compact, GET \/v1\/models, not GET \/v1\/files/,
    );
  });

  it("passes upstream errors through with their status and remembers them for the run", async () => {
    const token = gateway.issueRunToken({ runId: "failing" });
    const response = await ask(token, { model: "http-500", input: [] });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({
      error: { message: "The mock model was scripted to answer HTTP 500." },
    });
    expect(gateway.lastUpstreamError("failing")).toBe("HTTP 500: The mock model was scripted to answer HTTP 500.");
    const cut = await ask(token, { model: "cut-stream", input: [] });
    await expect(cut.text()).rejects.toThrow();
    await expect
      .poll(() => gateway.lastUpstreamError("failing"))
      .toMatch(/^the stream was cut before the response completed/);
  });

  it("streams a 1 MB response byte for byte", async () => {
    const token = gateway.issueRunToken({ runId: "big" });
    const body = { model: "big-response", stream: true, input: [] };
    const viaGateway = await (await ask(token, body)).text();
    const direct = await (
      await fetch(`${mock.url}/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}` },
        body: JSON.stringify(body),
      })
    ).text();
    expect(viaGateway.length).toBeGreaterThan(1_000_000);
    // Same events; only the random ids and timestamps differ.
    const shape = (text: string) => text.replace(/"([a-z_]*id|created_at)":("[^"]*"|\d+)/g, "");
    expect(shape(viaGateway)).toBe(shape(direct));
    expect(gateway.usage("big")).toEqual({
      inputTokens: 50,
      cachedInputTokens: 0,
      outputTokens: 65536,
      reasoningTokens: 0,
    });
  });

  it("meters each run's tokens from response.completed", async () => {
    const token = gateway.issueRunToken({ runId: "metered" });
    expect(gateway.usage("metered")).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    });
    await (await ask(token, { model: "metered", input: conversation(0), tools: [EXEC_COMMAND] })).text();
    await (await ask(token, { model: "metered", input: conversation(1), tools: [EXEC_COMMAND] })).text();
    const total = { inputTokens: 2500, cachedInputTokens: 1300, outputTokens: 38, reasoningTokens: 12 };
    expect(gateway.usage("metered")).toEqual(total);
    expect(usageEvents.filter((e) => e.runId === "metered")).toEqual([
      {
        runId: "metered",
        usage: { inputTokens: 1200, cachedInputTokens: 200, outputTokens: 30, reasoningTokens: 12 },
        total: { inputTokens: 1200, cachedInputTokens: 200, outputTokens: 30, reasoningTokens: 12 },
      },
      {
        runId: "metered",
        usage: { inputTokens: 1300, cachedInputTokens: 1100, outputTokens: 8, reasoningTokens: 0 },
        total,
      },
    ]);
    gateway.revoke("metered");
    expect(gateway.usage("metered")).toEqual(total);
    gateway.forget("metered");
    expect(gateway.usage("metered")).toBeNull();
  });

  it("refuses a run past its token budget with 429 and says so once", async () => {
    const token = gateway.issueRunToken({ runId: "budget", budgetTokens: 150 });
    const untouched = gateway.issueRunToken({ runId: "unbudgeted" });
    const before = seen.length;
    const status = async (response: Promise<Response>) => {
      const r = await response;
      await r.text();
      return r.status;
    };
    expect(await status(ask(token, { model: "budget", input: conversation(0), tools: [EXEC_COMMAND] }))).toBe(200);
    expect(exceeded).toEqual([]);
    expect(await status(ask(token, { model: "budget", input: conversation(1), tools: [EXEC_COMMAND] }))).toBe(200);
    expect(exceeded).toEqual([{ runId: "budget", usedTokens: 200, budgetTokens: 150 }]);
    const refused = await ask(token, { model: "budget", input: conversation(2), tools: [EXEC_COMMAND] });
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      error: {
        type: "token_budget_exceeded",
        code: "token_budget_exceeded",
        param: null,
        message:
          "Run budget has used 200 tokens, reaching its budget of 150; the model gateway accepts no more requests for it.",
      },
    });
    expect((await ask(token, { model: "budget", input: [] })).status).toBe(429);
    expect(seen.length).toBe(before + 2);
    expect(exceeded).toHaveLength(1);
    expect((await ask(untouched, { model: "budget", input: conversation(2), tools: [EXEC_COMMAND] })).status).toBe(200);
  });
});

describe("model gateway streaming mechanics", () => {
  const started: { server: http.Server }[] = [];
  const gateways: ModelGateway[] = [];
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    for (const { server } of started) await closeServer(server);
  });

  async function gatewayFor(handler: http.RequestListener, options: Partial<ModelGatewayOptions> = {}) {
    const upstream = await listen(handler);
    started.push(upstream);
    const gateway = await startModelGateway({
      upstreamBaseUrl: upstream.url,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
      ...options,
    });
    gateways.push(gateway);
    return { gateway, token: gateway.issueRunToken({ runId: "r" }) };
  }

  function request(
    gateway: ModelGateway,
    token: string,
  ): { req: http.ClientRequest; response: Promise<http.IncomingMessage> } {
    const req = http.request(`${gateway.url}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
    });
    const response = new Promise<http.IncomingMessage>((resolve, reject) =>
      req.once("response", resolve).once("error", reject),
    );
    req.end("{}");
    return { req, response };
  }

  it("passes each chunk on as it arrives, without waiting for the end", async () => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const { gateway, token } = await gatewayFor((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write('data: {"type":"response.created"}\n\n');
      void released.then(() =>
        res.end('data: {"type":"response.completed","response":{"usage":{"input_tokens":3,"output_tokens":4}}}\n\n'),
      );
    });
    const { response } = request(gateway, token);
    const res = await response;
    const first = await withTimeout(
      new Promise<string>((resolve) => res.once("data", (chunk: Buffer) => resolve(chunk.toString()))),
      5000,
      "first chunk while the upstream is still open",
    );
    expect(first).toContain("response.created");
    release();
    await new Promise((resolve) => res.on("end", resolve).resume());
    expect(gateway.usage("r")).toEqual({ inputTokens: 3, cachedInputTokens: 0, outputTokens: 4, reasoningTokens: 0 });
  });

  it("aborts the upstream request when the client goes away, and when the run is revoked", async () => {
    const upstreamClosed: Promise<void>[] = [];
    const { gateway, token } = await gatewayFor((_req, res) => {
      upstreamClosed.push(new Promise((resolve) => res.once("close", () => resolve())));
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.write("data: {}\n\n"); // and never finish
    });
    const first = request(gateway, token);
    const res = await first.response;
    await new Promise((resolve) => res.once("data", resolve));
    first.req.destroy();
    await withTimeout(upstreamClosed[0]!, 5000, "upstream sees the client's abort");

    const second = request(gateway, token);
    const res2 = await second.response;
    const clientClosed = new Promise((resolve) => res2.once("close", resolve));
    res2.resume();
    gateway.revoke("r");
    await withTimeout(Promise.all([upstreamClosed[1]!, clientClosed]), 5000, "revoke ends the in-flight stream");
  });

  it("respects backpressure: a client that stops reading stops the upstream", async () => {
    const TOTAL = 64 * 1024 * 1024;
    let written = 0;
    const { gateway, token } = await gatewayFor((_req, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      const chunk = Buffer.alloc(64 * 1024, 0x61);
      const pump = () => {
        while (written < TOTAL) {
          written += chunk.length;
          if (!res.write(chunk)) return void res.once("drain", pump);
        }
        res.end();
      };
      pump();
    });
    const res = await request(gateway, token).response;
    res.pause();
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(written).toBeLessThan(TOTAL / 2);
    let received = 0;
    res.on("data", (chunk: Buffer) => (received += chunk.length));
    await new Promise((resolve) => res.on("end", resolve).resume());
    expect(received).toBe(TOTAL);
  });

  it("relays every framing byte for byte to a client that reads slowly (chunked, content-length, close-delimited)", async () => {
    // More than the loopback socket buffers hold, so the gateway's writes queue while the client pauses.
    const data = randomBytes(12 * 1024 * 1024);
    const framings = ["chunked", "length", "close"] as const;
    for (const framing of framings) {
      const { gateway, token } = await gatewayFor((_req, res) => {
        if (framing === "length")
          res.writeHead(200, { "content-type": "text/event-stream", "content-length": data.length });
        else
          res.writeHead(200, {
            "content-type": "text/event-stream",
            ...(framing === "close" ? { connection: "close" } : {}),
          });
        if (framing === "close") res.useChunkedEncodingByDefault = false;
        // a trickle of small uneven writes, so the gateway reads small pieces while its own writes are queued
        let at = 0;
        const pump = () => {
          const size = 1024 + ((at * 7919) % 7000);
          const ok = res.write(data.subarray(at, at + size));
          at += size;
          if (at >= data.length) return void res.end();
          if (ok) setImmediate(pump);
          else res.once("drain", pump);
        };
        pump();
      });
      const res = await request(gateway, token).response;
      expect(res.headers["transfer-encoding"] === "chunked", framing).toBe(framing !== "length");
      res.pause();
      await new Promise((resolve) => setTimeout(resolve, 300)); // the gateway's writes back up meanwhile
      const hash = createHash("sha256");
      let received = 0;
      res.on("data", (chunk: Buffer) => {
        hash.update(chunk);
        received += chunk.length;
      });
      await new Promise((resolve) => res.on("end", resolve).resume());
      expect(received, framing).toBe(data.length);
      expect(hash.digest("hex"), framing).toBe(createHash("sha256").update(data).digest("hex"));
    }
  });

  it("joins paths onto the upstream base URL and never lets a path escape the allowed prefixes", async () => {
    const seenPaths: string[] = [];
    const upstream = await listen((req, res) => {
      seenPaths.push(req.url ?? "");
      res.writeHead(200, { "content-type": "application/json" });
      res.end('{"usage":{"input_tokens":1,"output_tokens":1}}'); // a compaction is metered like a response
    });
    started.push(upstream);
    const bareHost = await startModelGateway({
      upstreamBaseUrl: upstream.url.replace(/\/v1$/, ""),
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
    });
    const withSlash = await startModelGateway({
      upstreamBaseUrl: `${upstream.url}/`,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
    });
    gateways.push(bareHost, withSlash);
    const get = (gateway: ModelGateway, pathAndQuery: string) =>
      fetch(`${gateway.url}${pathAndQuery}`, {
        headers: { authorization: `Bearer ${gateway.issueRunToken({ runId: "p" })}` },
      });
    expect((await get(bareHost, "/models?limit=2")).status).toBe(200);
    const compact = await fetch(`${withSlash.url}/responses/compact`, {
      method: "POST",
      headers: { authorization: `Bearer ${withSlash.issueRunToken({ runId: "p" })}` },
      body: JSON.stringify({ model: "m", input: [] }),
    });
    expect(compact.status).toBe(200);
    expect(seenPaths).toEqual(["/models?limit=2", "/v1/responses/compact"]);
    // Stored responses (GET /v1/responses/<id>) are data of the whole account, not the run's: never forwarded.
    expect((await get(withSlash, "/responses/abc")).status).toBe(404);
    expect((await get(withSlash, "/responses")).status).toBe(405);
    for (const escape of ["/responses/../files", "/responses/%2e%2e/files", "/models/..%2f..%2forganization"]) {
      expect((await get(withSlash, escape)).status, escape).toBe(404);
    }
    expect(seenPaths).toHaveLength(2);
  });

  it("hides the real key: redacted from upstream errors, absent from logs", async () => {
    const logs: string[] = [];
    const { gateway, token } = await gatewayFor(
      (req, res) => {
        res.writeHead(401, { "content-type": "application/json", "set-cookie": "session=upstream" });
        res.end(
          JSON.stringify({
            error: {
              message: `Incorrect API key provided: ${String(req.headers.authorization).slice(7)}.`,
              type: "invalid_request_error",
            },
          }),
        );
      },
      { log: (line) => logs.push(line) },
    );
    const res = await fetch(`${gateway.url}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}` },
      body: "{}",
    });
    expect(res.status).toBe(401);
    expect(res.headers.get("set-cookie")).toBeNull();
    const body = await res.text();
    expect(body).toContain("Incorrect API key provided: [redacted].");
    expect(body).not.toContain(KEY);
    expect(gateway.lastUpstreamError("r")).toBe("HTTP 401: Incorrect API key provided: [redacted].");
    expect(logs.join("\n")).not.toContain(KEY);
  });

  it("reads a response head that arrives over several reads of a plain TCP upstream", async () => {
    const pieces = [
      "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n",
      "x-first: one\r\nx-sec",
      `ond: two\r\ncontent-length: ${METERED_JSON.length}\r\n\r\n${METERED_JSON}`,
    ];
    const upstream = net.createServer((socket) => {
      socket.once("data", () => pieces.forEach((piece, i) => setTimeout(() => socket.write(piece), i * 40)));
    });
    await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
    const gateway = await startModelGateway({
      upstreamBaseUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
    });
    try {
      const res = await fetch(`${gateway.url}/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${gateway.issueRunToken({ runId: "h" })}` },
        body: "{}",
      });
      const headers = { first: res.headers.get("x-first"), second: res.headers.get("x-second") };
      expect({ status: res.status, ...headers, body: await res.text() }).toEqual({
        status: 200,
        first: "one",
        second: "two",
        body: METERED_JSON,
      });
    } finally {
      await gateway.close(); // closes its pooled connection, so the upstream can close
      await new Promise<void>((resolve) => upstream.close(() => resolve()));
    }
  });

  it("explains an unreachable upstream (502) and a missing credential (503)", async () => {
    const closed = await listen(() => undefined);
    await closeServer(closed.server);
    const unreachable = await startModelGateway({
      upstreamBaseUrl: closed.url,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
    });
    gateways.push(unreachable);
    const res = await fetch(`${unreachable.url}/responses`, {
      method: "POST",
      headers: { authorization: `Bearer ${unreachable.issueRunToken({ runId: "x" })}` },
      body: "{}",
    });
    expect(res.status).toBe(502);
    expect(await res.text()).toMatch(/could not reach the upstream API at 127\.0\.0\.1:\d+: connect ECONNREFUSED/);

    let calls = 0;
    const unsigned = await startModelGateway({
      upstreamBaseUrl: closed.url,
      credential: () => {
        calls += 1;
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: "The host's Codex is signed in with ChatGPT. Give invariant-web an OpenAI API key: …",
        });
      },
    });
    gateways.push(unsigned);
    const token = unsigned.issueRunToken({ runId: "y" });
    for (let i = 0; i < 2; i++) {
      const refused = await fetch(`${unsigned.url}/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
        body: "{}",
      });
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({
        error: {
          type: "gateway_not_signed_in",
          message: expect.stringMatching(/signed in with ChatGPT\. Give invariant-web an OpenAI API key/) as string,
        },
      });
    }
    expect(calls).toBe(2); // fixed credentials are picked up without a restart
  });
});
