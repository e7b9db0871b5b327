import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startMockModel, type MockModelServer } from "../mock-model/mock-model-server";
import { runPolicy } from "../agents/run-policy";
import type { HarnessKind } from "../../../shared/vocabulary";
import type { GatewayApi } from "./apis/gateway-api";
import {
  askClaude,
  askGemini,
  claudeTurn,
  OPENAI_KEY,
  SCRIPTS,
  startProviderRig,
  type ProviderRig,
} from "../../../../test/support/provider-gateway-rig";

/**
 * The run policy pins a harness's API (issue 27): a real gateway in front of three mock providers (each
 * accepting only its own real key), and a run token of each harness kind calling each API. Its own API
 * is answered by the provider; another is a 403 in the caller's API's shape naming the run's API, and
 * never reaches any upstream. A command harness may call all three, its model still pinned.
 */
const KINDS: readonly HarnessKind[] = ["codex", "claude-code", "gemini-cli", "command"];
const APIS: readonly GatewayApi[] = ["responses", "anthropic", "gemini"];
const OWN_API: Record<HarnessKind, GatewayApi | null> = {
  codex: "responses",
  "claude-code": "anthropic",
  "gemini-cli": "gemini",
  command: null,
};
const DESCRIBED: Record<GatewayApi, string> = {
  responses: "Codex's OpenAI Responses API",
  anthropic: "Claude Code's Anthropic Messages API",
  gemini: "Gemini CLI's Google Gemini API",
};
const CALLED: Record<GatewayApi, string> = {
  responses: "POST /v1/responses",
  anthropic: "POST /v1/messages",
  gemini: "POST /v1beta/models/done:streamGenerateContent",
};

/** The message of an error body in any of the three APIs' shapes. */
function errorMessage(api: GatewayApi, body: unknown): string {
  const parsed = body as { error: { message: string } };
  expect(api === "anthropic" ? (body as { type: string }).type : "error").toBe("error");
  return parsed.error.message;
}

describe("the run's harness pins the API its token may call", () => {
  let rig: ProviderRig;
  let openai: MockModelServer;
  let openaiRequests = 0;
  beforeAll(async () => {
    openai = await startMockModel({ scripts: SCRIPTS, apiKey: OPENAI_KEY, onRequest: () => (openaiRequests += 1) });
    rig = await startProviderRig({ upstreamBaseUrl: openai.url });
  });
  afterAll(async () => {
    await rig.close();
    await openai.close();
  });

  const upstreamRequests = () => openaiRequests + rig.seen.anthropic.length + rig.seen.google.length;

  function ask(api: GatewayApi, token: string, model = "done"): Promise<Response> {
    if (api === "anthropic") return askClaude({ root: rig.root, token, body: claudeTurn(model) });
    if (api === "gemini") return askGemini({ root: rig.root, token, model });
    return fetch(`${rig.gateway.url}/responses`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ model, stream: true, input: [] }),
    });
  }

  for (const kind of KINDS)
    for (const api of APIS) {
      const own = OWN_API[kind];
      const allowed = own === null || own === api;
      it(`${kind} × ${api}: ${allowed ? "answered by the provider" : "403, never forwarded"}`, async () => {
        const runId = `${kind}-${api}`;
        const policy = runPolicy({ harness: { kind, model: "done" }, network: "none" });
        const token = rig.gateway.issueRunToken({ runId, policy });
        const before = upstreamRequests();
        const res = await ask(api, token);
        const body = await res.text();
        if (allowed) {
          expect(res.status, body).toBe(200);
          expect(upstreamRequests()).toBe(before + 1);
          expect(rig.gateway.usage(runId)!.outputTokens).toBe(SCRIPTS.done!.usage!.outputTokens);
          return;
        }
        expect(res.status).toBe(403);
        expect(errorMessage(api, JSON.parse(body))).toBe(
          `This run's token is for ${DESCRIBED[own]}; it cannot call ${CALLED[api]}.`,
        );
        // the refusal is in the caller's API's shape, with the gateway's reason
        if (api === "anthropic") expect(JSON.parse(body)).toMatchObject({ error: { type: "permission_error" } });
        if (api === "gemini")
          expect(JSON.parse(body)).toMatchObject({ error: { code: 403, status: "PERMISSION_DENIED" } });
        if (api === "responses") expect(JSON.parse(body)).toMatchObject({ error: { code: "api_not_allowed" } });
        expect(upstreamRequests()).toBe(before);
        expect(rig.gateway.lastUpstreamError(runId)).toContain("refused a request: This run's token is for");
        expect(rig.gateway.usage(runId)!.outputTokens).toBe(0);
      });
    }

  it("keeps a command harness's model pinned on every API", async () => {
    const policy = runPolicy({ harness: { kind: "command", model: "done" }, network: "none" });
    const token = rig.gateway.issueRunToken({ runId: "command-other-model", policy });
    const before = upstreamRequests();
    for (const api of APIS) {
      const res = await ask(api, token, "other");
      expect(res.status, api).toBe(400);
      expect(await res.text()).toContain("model_not_allowed");
    }
    expect(upstreamRequests()).toBe(before);
  });

  it("never echoes a ?key= token in the refusal (the path is named without its query)", async () => {
    const policy = runPolicy({ harness: { kind: "codex", model: "done" }, network: "none" });
    const token = rig.gateway.issueRunToken({ runId: "codex-key-query", policy });
    const res = await askGemini({ root: rig.root, token, model: "done", tokenIn: "query" });
    expect(res.status).toBe(403);
    const text = await res.text();
    expect(text).toContain("it cannot call POST /v1beta/models/done:streamGenerateContent.");
    expect(text).not.toContain(token);
  });

  it("checks the route first: an unknown path is a 404 for a pinned run too", async () => {
    const policy = runPolicy({ harness: { kind: "claude-code", model: "done" }, network: "none" });
    const token = rig.gateway.issueRunToken({ runId: "claude-404", policy });
    const res = await askClaude({ root: rig.root, token, path: "/v1/files", body: claudeTurn("done") });
    expect(res.status).toBe(404);
  });
});
