import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  askClaude,
  askGemini,
  claudeTurn,
  geminiTurn,
  startProviderRig,
  USAGE,
  type ProviderRig,
} from "../../../../../test/support/provider-gateway-rig";
import type { RunPolicy } from "../request-policy";

/**
 * The run's policy and budget on Anthropic's and Google's APIs, through the gateway in front of the
 * mock model: another model is refused, hosted tools are refused in network mode none and pass where
 * the policy allows them, a run past its budget gets 429 in the API's error shape, and the routes are
 * exactly the CLIs' (nothing refused reaches the upstream).
 */
const STRICT: RunPolicy = { model: "done", hostedTools: false };
const OPEN: RunPolicy = { model: "done", hostedTools: true };

type AnthropicError = { type: string; error: { type: string; message: string; code: string } };
type GeminiError = { error: { code: number; status: string; message: string; details: { reason: string }[] } };

describe("run policy and budgets on the Anthropic and Gemini APIs", () => {
  let rig: ProviderRig;
  beforeAll(async () => {
    rig = await startProviderRig();
  });
  afterAll(async () => {
    await rig.close();
  });
  const forwarded = () => rig.seen.anthropic.length + rig.seen.google.length;

  it("pins the model: Anthropic's body model, Gemini's path model", async () => {
    const token = rig.gateway.issueRunToken({ runId: "pin", policy: STRICT });
    const before = forwarded();
    const claude = await askClaude({ root: rig.root, token, body: claudeTurn("other") });
    expect(claude.status).toBe(400);
    const claudeError = (await claude.json()) as AnthropicError;
    expect(claudeError).toMatchObject({
      type: "error",
      error: { type: "invalid_request_error", code: "model_not_allowed" },
    });
    expect(claudeError.error.message).toMatch(/may use only the model "done" \(its configuration's\), not "other"/);
    const gemini = await askGemini({ root: rig.root, token, model: "other" });
    expect(gemini.status).toBe(400);
    const geminiError = (await gemini.json()) as GeminiError;
    expect(geminiError.error).toMatchObject({ code: 400, status: "INVALID_ARGUMENT" });
    expect(geminiError.error.details[0]!.reason).toBe("model_not_allowed");
    expect(geminiError.error.message).toMatch(/only the model "done".*not "other"/);
    // a countTokens body naming another model is refused too
    const nested = await askGemini({
      root: rig.root,
      token,
      model: "done",
      method: "countTokens",
      body: { generateContentRequest: { model: "models/other", contents: [] } },
    });
    expect(nested.status).toBe(400);
    expect(forwarded()).toBe(before);
    expect(rig.gateway.lastUpstreamError("pin")).toMatch(/^refused a request: .*not "models\/other"/);
    expect((await askClaude({ root: rig.root, token, body: claudeTurn("done") })).status).toBe(200);
    expect((await askGemini({ root: rig.root, token, model: "done" })).status).toBe(200);
  });

  it("refuses hosted tools in network mode none, and lets them through where the policy allows", async () => {
    const strict = rig.gateway.issueRunToken({ runId: "strict", policy: STRICT });
    const open = rig.gateway.issueRunToken({ runId: "open", policy: OPEN });
    const claudeBodies = [
      claudeTurn("done", { tools: [{ type: "web_search_20250305", name: "web_search", max_uses: 3 }] }),
      claudeTurn("done", { tools: [{ type: "web_fetch_20250910", name: "web_fetch" }] }),
      claudeTurn("done", { tools: [{ type: "code_execution_20250825", name: "code_execution" }] }),
      claudeTurn("done", { mcp_servers: [{ type: "url", url: "https://mcp.invalid/sse", name: "x" }] }),
      claudeTurn("done", {
        messages: [
          { role: "user", content: [{ type: "image", source: { type: "url", url: "https://exfil.invalid/a.png" } }] },
        ],
      }),
    ];
    const geminiBodies = [
      geminiTurn({ tools: [{ googleSearch: {} }] }),
      geminiTurn({ tools: [{ functionDeclarations: [] }, { google_search_retrieval: {} }] }),
      geminiTurn({ tools: [{ codeExecution: {} }] }),
      geminiTurn({ tools: [{ urlContext: {} }] }),
      geminiTurn({ cachedContent: "cachedContents/abc" }),
      geminiTurn({ contents: [{ role: "user", parts: [{ fileData: { fileUri: "https://exfil.invalid/v" } }] }] }),
    ];
    const before = forwarded();
    for (const body of claudeBodies) {
      const res = await askClaude({ root: rig.root, token: strict, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      const error = ((await res.json()) as AnthropicError).error;
      expect(error.code).toMatch(/^(hosted_tool_not_allowed|url_input_not_allowed)$/);
      expect(error.message).toMatch(/network mode is "none"/);
    }
    for (const body of geminiBodies) {
      const res = await askGemini({ root: rig.root, token: strict, model: "done", body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(((await res.json()) as GeminiError).error.message).toMatch(/network mode is "none"/);
    }
    expect(forwarded()).toBe(before);
    for (const body of claudeBodies)
      expect((await askClaude({ root: rig.root, token: open, body })).status, JSON.stringify(body)).toBe(200);
    for (const body of geminiBodies)
      expect((await askGemini({ root: rig.root, token: open, model: "done", body })).status).toBe(200);
    expect(forwarded()).toBe(before + claudeBodies.length + geminiBodies.length);
    // custom tools (no type, or "custom") and functionDeclarations are the client's own: they pass in none
    const custom = claudeTurn("done", { tools: [{ type: "custom", name: "Bash", input_schema: { type: "object" } }] });
    expect((await askClaude({ root: rig.root, token: strict, body: custom })).status).toBe(200);
  });

  it("stops a run at its budget with 429 in each API's shape, and says so once", async () => {
    const each = USAGE.inputTokens + USAGE.outputTokens; // 2,000 tokens a turn
    const claudeToken = rig.gateway.issueRunToken({ runId: "budget-claude", budgetTokens: each + 1, policy: STRICT });
    expect((await askClaude({ root: rig.root, token: claudeToken, body: claudeTurn("done") })).status).toBe(200);
    expect(rig.gateway.budgetReached("budget-claude")).toBe(false);
    const second = await askClaude({ root: rig.root, token: claudeToken, body: claudeTurn("done", { stream: false }) });
    expect(second.status).toBe(200);
    expect(rig.gateway.budgetReached("budget-claude")).toBe(true);
    for (let i = 0; i < 2; i++) {
      const refused = await askClaude({ root: rig.root, token: claudeToken, body: claudeTurn("done") });
      expect(refused.status).toBe(429);
      expect(await refused.json()).toMatchObject({
        type: "error",
        error: { type: "rate_limit_error", code: "token_budget_exceeded" },
      });
    }

    const geminiToken = rig.gateway.issueRunToken({ runId: "budget-gemini", budgetTokens: each, policy: STRICT });
    expect((await askGemini({ root: rig.root, token: geminiToken, model: "done" })).status).toBe(200);
    const refused = await askGemini({ root: rig.root, token: geminiToken, model: "done" });
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).toBe("86400");
    expect(((await refused.json()) as GeminiError).error).toMatchObject({
      status: "RESOURCE_EXHAUSTED",
      message: expect.stringMatching(/has used 2000 tokens, reaching its budget of 2000/) as string,
    });
    expect(rig.exceeded.filter((e) => e.runId.startsWith("budget-"))).toEqual([
      { runId: "budget-claude", usedTokens: 2 * each, budgetTokens: each + 1 },
      { runId: "budget-gemini", usedTokens: each, budgetTokens: each },
    ]);
  });

  it("forwards exactly the CLIs' routes: other paths 404, other methods 405, traversal refused", async () => {
    const token = rig.gateway.issueRunToken({ runId: "routes" });
    const before = rig.seen.urls.length;
    const send = (method: string, path: string) =>
      fetch(`${rig.root}${path}`, {
        method,
        headers: { "x-api-key": token, "content-type": "application/json" },
        ...(method === "GET" ? {} : { body: "{}" }),
      });
    const notFound = [
      "/v1/messages/batches",
      "/v1/messages/msg_1",
      "/v1/files",
      "/v1beta/models/done:embedContent",
      "/v1beta/models/done",
      "/v1beta/files/abc:download",
      "/v1beta/models/a/b:generateContent",
      "/v1beta/models/..:generateContent",
      "/v1beta/models/%2e%2e%2ffiles:generateContent",
      "/v1beta/tunedModels/x:generateContent",
    ];
    for (const path of notFound) expect((await send("POST", path)).status, path).toBe(404);
    const gemini404 = (await (await send("POST", "/v1beta/models/done:embedContent")).json()) as GeminiError;
    expect(gemini404.error).toMatchObject({
      status: "NOT_FOUND",
      message: expect.stringMatching(/:countTokens/) as string,
    });
    const claude405 = await send("GET", "/v1/messages");
    expect(claude405.status).toBe(405);
    expect(((await claude405.json()) as AnthropicError).error.type).toBe("invalid_request_error");
    expect((await send("GET", "/v1beta/models/done:generateContent")).status).toBe(405);
    expect(rig.seen.urls.length).toBe(before);
    // an encoded colon is the same route, forwarded with a plain one
    expect((await send("POST", "/v1beta/models/done%3AcountTokens")).status).toBe(200);
    expect(rig.seen.urls.at(-1)).toBe("/v1beta/models/done:countTokens");
  });
});
