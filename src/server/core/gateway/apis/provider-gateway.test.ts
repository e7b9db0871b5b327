import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockModel } from "../../mock-model/mock-model-server";
import { AppError } from "../../errors/app-error";
import { startModelGateway } from "../model-gateway";
import {
  ANTHROPIC_KEY,
  askClaude,
  askGemini,
  claudeTurn,
  closeServer,
  GOOGLE_KEY,
  listen,
  SCRIPTS,
  startProviderRig,
  USAGE,
  type ProviderRig,
} from "../../../../../test/support/provider-gateway-rig";

/**
 * The gateway in front of the mock model as Anthropic's and Google's APIs (issue 27, point 2): the run
 * token is swapped for that provider's real key in its own header and never reaches the upstream;
 * streams and JSON answers are metered into the run's TokenUsage; a provider without a key is a 401
 * saying how to sign in; keys are redacted from what the upstream echoes.
 */
const ANTHROPIC_USAGE = { ...USAGE, reasoningTokens: 0 }; // Anthropic counts thinking inside output_tokens only

function headerValues(headers: Record<string, unknown>): string {
  return JSON.stringify(headers);
}

describe("the gateway speaking Anthropic's and Google's APIs", () => {
  let rig: ProviderRig;
  beforeAll(async () => {
    rig = await startProviderRig();
  });
  afterAll(async () => {
    await rig.close();
    const logs = rig.logs.join("\n");
    for (const key of [ANTHROPIC_KEY, GOOGLE_KEY]) expect(logs).not.toContain(key);
  });

  it("swaps Claude Code's x-api-key for Anthropic's key, keeps anthropic-version and -beta, meters the stream", async () => {
    const token = rig.gateway.issueRunToken({ runId: "claude" });
    const res = await askClaude({ root: rig.root, token, body: claudeTurn("done") });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const text = await res.text();
    expect(text).toContain("event: message_delta");
    const seen = rig.seen.anthropic.at(-1)!;
    expect(seen.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.headers["anthropic-version"]).toBe("2023-06-01");
    expect(seen.headers["anthropic-beta"]).toBe("claude-code-20250219,interleaved-thinking-2025-05-14");
    expect(headerValues(seen.headers)).not.toContain(token);
    expect(rig.seen.urls.at(-1)).toBe("/v1/messages?beta=true");
    expect(rig.gateway.usage("claude")).toEqual(ANTHROPIC_USAGE);
    expect(rig.gateway.reportedModel("claude")).toBe("done");

    // the token as a bearer works too, and the bearer never goes upstream
    const bearer = await askClaude({
      root: rig.root,
      token: "",
      headers: { "x-api-key": "", authorization: `Bearer ${token}` },
      body: claudeTurn("done", { stream: false }),
    });
    expect(bearer.status).toBe(200);
    expect(((await bearer.json()) as { usage: unknown }).usage).toBeDefined();
    expect(rig.seen.anthropic.at(-1)!.headers.authorization).toBeUndefined();
    expect(rig.seen.anthropic.at(-1)!.headers["x-api-key"]).toBe(ANTHROPIC_KEY);
    // the JSON answer is metered from its usage
    expect(rig.gateway.usage("claude")!.inputTokens).toBe(2 * USAGE.inputTokens);
  });

  it("swaps Gemini CLI's x-goog-api-key (or ?key=) for Google's key, strips the key from the URL, meters SSE, JSON and arrays", async () => {
    const token = rig.gateway.issueRunToken({ runId: "gemini" });
    const sse = await askGemini({ root: rig.root, token, model: "done" });
    expect(sse.status).toBe(200);
    expect(await sse.text()).toContain('"usageMetadata"');
    const seen = rig.seen.google.at(-1)!;
    expect(seen.headers["x-goog-api-key"]).toBe(GOOGLE_KEY);
    expect(headerValues(seen.headers)).not.toContain(token);
    expect(rig.seen.urls.at(-1)).toBe("/v1beta/models/done:streamGenerateContent?alt=sse");
    expect(rig.gateway.usage("gemini")).toEqual(USAGE);
    expect(rig.gateway.reportedModel("gemini")).toBe("done");

    const json = await askGemini({ root: rig.root, token, model: "done", method: "generateContent", tokenIn: "query" });
    expect(json.status).toBe(200);
    expect(rig.seen.urls.at(-1)).toBe("/v1beta/models/done:generateContent");
    expect(rig.seen.google.at(-1)!.headers["x-goog-api-key"]).toBe(GOOGLE_KEY);
    const array = await askGemini({ root: rig.root, token, model: "done", query: "", tokenIn: "query" });
    expect(array.status).toBe(200);
    expect(Array.isArray(await array.json())).toBe(true);
    expect(rig.seen.urls.at(-1)).toBe("/v1beta/models/done:streamGenerateContent");
    expect(rig.seen.urls.join(" ")).not.toContain(token);
    expect(rig.gateway.usage("gemini")).toEqual({
      inputTokens: 3 * USAGE.inputTokens,
      cachedInputTokens: 3 * USAGE.cachedInputTokens,
      outputTokens: 3 * USAGE.outputTokens,
      reasoningTokens: 3 * USAGE.reasoningTokens,
    });
  });

  it("forwards count_tokens and countTokens unmetered", async () => {
    const token = rig.gateway.issueRunToken({ runId: "count" });
    const claude = await askClaude({
      root: rig.root,
      token,
      path: "/v1/messages/count_tokens?beta=true",
      body: { model: "done", messages: [{ role: "user", content: "hi" }] },
    });
    expect(claude.status).toBe(200);
    expect(await claude.json()).toMatchObject({ input_tokens: expect.any(Number) as number });
    const gemini = await askGemini({ root: rig.root, token, model: "done", method: "countTokens" });
    expect(gemini.status).toBe(200);
    expect(await gemini.json()).toMatchObject({ totalTokens: expect.any(Number) as number });
    expect(rig.gateway.usage("count")).toEqual({
      inputTokens: 0,
      cachedInputTokens: 0,
      outputTokens: 0,
      reasoningTokens: 0,
    });
  });

  it("adds the anthropic-version a client left out (Anthropic requires one)", async () => {
    const token = rig.gateway.issueRunToken({ runId: "version" });
    const res = await fetch(`${rig.root}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": token },
      body: JSON.stringify(claudeTurn("done", { stream: false })),
    });
    expect(res.status).toBe(200);
    expect(rig.seen.anthropic.at(-1)!.headers["anthropic-version"]).toBe("2023-06-01");
    expect(rig.seen.anthropic.at(-1)!.headers["anthropic-beta"]).toBeUndefined();
  });

  it("charges an estimate for a stream cut before its usage, on either API", async () => {
    const token = rig.gateway.issueRunToken({ runId: "cut" });
    const claude = await askClaude({ root: rig.root, token, body: claudeTurn("cut") });
    expect(await claude.text()).toContain("half of it");
    const afterClaude = rig.gateway.usage("cut")!;
    expect(afterClaude.inputTokens).toBeGreaterThan(0); // a token per 4 bytes of the request
    const gemini = await askGemini({ root: rig.root, token, model: "cut" });
    expect(await gemini.text()).toContain("half of it");
    expect(rig.gateway.usage("cut")!.inputTokens).toBeGreaterThan(afterClaude.inputTokens);
    expect(rig.logs.filter((line) => line.includes("run cut: a response's usage is unknown"))).toHaveLength(2);
  });

  it("answers a missing or unknown run token in each API's error shape", async () => {
    const claude = await askClaude({ root: rig.root, token: "iwrun_unknown", body: claudeTurn("done") });
    expect(claude.status).toBe(401);
    expect(await claude.json()).toMatchObject({
      type: "error",
      error: { type: "authentication_error", code: "invalid_run_token" },
    });
    const gemini = await fetch(`${rig.root}/v1beta/models/done:generateContent`, { method: "POST", body: "{}" });
    expect(gemini.status).toBe(401);
    expect(await gemini.json()).toMatchObject({
      error: { code: 401, status: "UNAUTHENTICATED", message: expect.stringMatching(/x-goog-api-key/) as string },
    });
  });
});

describe("a provider without a key, scripted runs, and redaction", () => {
  it("answers 401 saying how to sign in, in the API's shape, for a key that is null or throws", async () => {
    const gateway = await startModelGateway({
      upstreamBaseUrl: "http://127.0.0.1:9/v1",
      credential: (provider) => {
        if (provider === "google")
          throw new AppError({ code: "PRECONDITION_FAILED", message: "No Google access: nothing stored." });
        return null;
      },
    });
    try {
      const root = gateway.url.replace(/\/v1$/, "");
      const token = gateway.issueRunToken({ runId: "unsigned" });
      const claude = await askClaude({ root, token, body: claudeTurn("done") });
      expect(claude.status).toBe(401);
      const claudeError = ((await claude.json()) as { error: { type: string; message: string } }).error;
      expect(claudeError.type).toBe("authentication_error");
      expect(claudeError.message).toMatch(
        /no Anthropic API key.*`invariant-web login --provider anthropic`.*ANTHROPIC_API_KEY/,
      );
      const gemini = await askGemini({ root, token, model: "done" });
      expect(gemini.status).toBe(401);
      const geminiError = ((await gemini.json()) as { error: { status: string; message: string } }).error;
      expect(geminiError.status).toBe("UNAUTHENTICATED");
      expect(geminiError.message).toMatch(/No Google access: nothing stored\..*--provider google.*GEMINI_API_KEY/);
      expect(gateway.lastUpstreamError("unsigned")).toMatch(/--provider google/);
    } finally {
      await gateway.close();
    }
  });

  it("never sends a ChatGPT sign-in to Anthropic or Google: 401 as not signed in", async () => {
    const gateway = await startModelGateway({
      upstreamBaseUrl: "http://127.0.0.1:9/v1",
      upstreams: { anthropic: "http://127.0.0.1:9", google: "http://127.0.0.1:9" },
      credential: () => ({
        kind: "chatgpt",
        accessToken: "chatgpt-access-token-0004",
        accountId: "acct",
        source: "auth.json",
      }),
    });
    try {
      const root = gateway.url.replace(/\/v1$/, "");
      const token = gateway.issueRunToken({ runId: "chatgpt" });
      const claude = await askClaude({ root, token, body: claudeTurn("done") });
      expect(claude.status).toBe(401);
      expect(await claude.text()).toMatch(/--provider anthropic/);
      const gemini = await askGemini({ root, token, model: "done" });
      expect(gemini.status).toBe(401);
      expect(await gemini.text()).toMatch(/--provider google/);
    } finally {
      await gateway.close();
    }
  });

  it("sends a scripted run's Anthropic and Gemini requests to the scripted model with no key", async () => {
    const seen: Record<string, unknown>[] = [];
    const mock = await startMockModel({ scripts: SCRIPTS, onRequest: (r) => seen.push(r.headers) });
    const gateway = await startModelGateway({
      upstreamBaseUrl: "http://127.0.0.1:9/v1",
      upstreams: { anthropic: "http://127.0.0.1:9", google: "http://127.0.0.1:9" },
      scriptedBaseUrl: mock.url, // the mock's /v1 URL, as the worker passes it
      credential: () => ({ kind: "api-key", apiKey: ANTHROPIC_KEY }),
    });
    try {
      const root = gateway.url.replace(/\/v1$/, "");
      const token = gateway.issueRunToken({
        runId: "scripted",
        policy: { model: "done", hostedTools: false, scripted: true },
      });
      expect((await askClaude({ root, token, body: claudeTurn("done") })).status).toBe(200);
      expect((await askGemini({ root, token, model: "done" })).status).toBe(200);
      expect(seen).toHaveLength(2);
      for (const sent of seen) {
        expect(sent["x-api-key"]).toBeUndefined();
        expect(sent["x-goog-api-key"]).toBeUndefined();
        expect(headerValues(sent)).not.toContain(token);
      }
      expect(gateway.usage("scripted")!.inputTokens).toBe(2 * USAGE.inputTokens);
    } finally {
      await gateway.close();
      await mock.close();
    }
  });

  it("redacts each provider's key from an upstream error that echoes it, and from the logs", async () => {
    const upstream = await listen((req, res) => {
      const echoed = String(req.headers["x-api-key"] ?? req.headers["x-goog-api-key"]);
      res.writeHead(401, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `invalid x-api-key: ${echoed}` } }));
    });
    const logs: string[] = [];
    const gateway = await startModelGateway({
      upstreamBaseUrl: "http://127.0.0.1:9/v1",
      upstreams: { anthropic: upstream.url, google: upstream.url },
      credential: (provider) => ({ kind: "api-key", apiKey: provider === "google" ? GOOGLE_KEY : ANTHROPIC_KEY }),
      log: (line) => logs.push(line),
    });
    try {
      const root = gateway.url.replace(/\/v1$/, "");
      const token = gateway.issueRunToken({ runId: "redact" });
      for (const res of [
        await askClaude({ root, token, body: claudeTurn("done") }),
        await askGemini({ root, token, model: "done" }),
      ]) {
        expect(res.status).toBe(401);
        const body = await res.text();
        expect(body).toContain("invalid x-api-key: [redacted]");
        for (const key of [ANTHROPIC_KEY, GOOGLE_KEY, token]) expect(body).not.toContain(key);
      }
      expect(gateway.lastUpstreamError("redact")).toBe("HTTP 401: invalid x-api-key: [redacted]");
      for (const key of [ANTHROPIC_KEY, GOOGLE_KEY]) expect(logs.join("\n")).not.toContain(key);
    } finally {
      await gateway.close();
      await closeServer(upstream.server);
    }
  });
});
