import net from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createDashboardChannel } from "../src/server/core/artifacts/dashboard-channel";
import { createJobQueue } from "../src/server/core/jobs/job-queue";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { startMockModel, type MockModelServer } from "../src/server/core/mock-model/mock-model-server";
import type { MockModelRequest } from "../src/server/core/mock-model/mock-model-types";
import { wireWorkers } from "../src/server/web/wiring/worker-wiring";
import type { HarnessKind } from "../src/shared/vocabulary";
import { createRelayedGateway } from "../worker/relayed-gateway";
import { startHttpHarness, type HttpHarness } from "./support/http-harness";
import { seedStudy, startJobTaker } from "./support/leased-jobs";
import { askClaude, askGemini, claudeTurn } from "./support/provider-gateway-rig";
import { redisUrlFor } from "./support/temp";

/**
 * The model relay of a worker on another host, for all three agent APIs (issue 27): the worker's relayed
 * gateway (worker/relayed-gateway.ts) takes a container's request as Codex (Bearer), Claude Code
 * (x-api-key, /v1/messages?beta=true) or Gemini CLI (x-goog-api-key or ?key=, /v1beta/…) sends it, and
 * relays it over the real worker API under the trial's lease to the dashboard's gateway, which swaps the
 * run token for the provider's real key (the mock answers only that key), meters and budgets the run and
 * pins its harness's API. The run token never reaches the provider; the real key never reaches the worker.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 31);
const REAL_KEY = "sk-test-REAL-relay-key-4242";
const USAGE = { inputTokens: 1200, cachedInputTokens: 200, outputTokens: 300, reasoningTokens: 0 };
const queue = createJobQueue({ redisUrl: REDIS_URL });
const seen: MockModelRequest[] = [];
const urls: string[] = [];
const exceeded: string[] = [];
let mock: MockModelServer;
let app: HttpHarness;
let taker: ReturnType<typeof startJobTaker>;
let relayed: ReturnType<typeof createRelayedGateway>;
let containerSide: net.Server;
let root: string;

beforeAll(async () => {
  mock = await startMockModel({
    scripts: { "relay-hello": { steps: [{ kind: "reply", text: "hello through the relay" }], usage: USAGE } },
    apiKey: REAL_KEY,
    onRequest: (request) => seen.push(request),
    onHttpRequest: (request) => urls.push(request.url),
  });
  app = await startHttpHarness({
    redisUrl: REDIS_URL,
    workers: ({ db, dataDir }) =>
      wireWorkers({
        db,
        dataDir,
        redisUrl: REDIS_URL,
        runtime: createDockerRuntime({ hostCaBundle: null }),
        gateway: {
          upstreamBaseUrl: mock.url,
          upstreams: { anthropic: mock.rootUrl, google: mock.rootUrl },
          credential: () => ({ kind: "api-key", apiKey: REAL_KEY }),
        },
      }),
  });
  taker = startJobTaker({ redisUrl: REDIS_URL, queue });
  const worker = await app.services.workers.tokens.create({ name: "relay-box" });
  const channel = createDashboardChannel({ dashboardUrl: app.base, token: worker.token, onRefused: () => undefined });
  relayed = createRelayedGateway({
    channel,
    onBudgetExceeded: ({ runId }) => exceeded.push(runId),
    log: () => undefined,
  });
  // what the containers' bridge reaches: the worker's gateway socket (here on a loopback port)
  containerSide = net.createServer((socket) => relayed.acceptConnection(socket));
  await new Promise<void>((resolve) => containerSide.listen(0, "127.0.0.1", resolve));
  root = `http://127.0.0.1:${(containerSide.address() as AddressInfo).port}`;
});

afterAll(async () => {
  containerSide?.close();
  await relayed?.close();
  await taker?.close();
  await app?.close();
  await queue.close();
  await mock?.close();
});

/** A trial of `kind` on the hello script, its job taken by the worker, its model run opened with the dashboard. */
async function openRun(kind: HarnessKind, budget = 100_000): Promise<{ runId: string; token: string }> {
  const seeded = await seedStudy(app, `relay-${kind}-${budget}`, [{ state: "queued" }]);
  const [row] = seeded.trials;
  if (!row) throw new Error("seeded a trial");
  const manifest = JSON.parse((await app.db.trial.findUniqueOrThrow({ where: { id: row.id } })).manifest ?? "{}") as {
    configuration: Record<string, unknown>;
    tokenBudget: number;
  };
  manifest.configuration = { ...manifest.configuration, harness: kind, model: "relay-hello" };
  manifest.tokenBudget = budget;
  await app.db.trial.update({ where: { id: row.id }, data: { manifest: JSON.stringify(manifest) } });
  const lease = await taker.takeTrialJob(seeded, 0);
  const runId = `trial-${row.id}`;
  await relayed.open({ runId, lease });
  return { runId, token: relayed.issueRunToken({ runId }) };
}

const askResponses = (token: string) =>
  fetch(`${root}/v1/responses`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ model: "relay-hello", stream: true, input: [] }),
  });

/** The provider saw the real key in its API's header and nothing of the run token, in headers or URL. */
function expectOnlyTheRealKey(token: string, header: string): void {
  const request = seen.at(-1);
  expect(request?.headers[header]).toBe(header === "authorization" ? `Bearer ${REAL_KEY}` : REAL_KEY);
  expect(JSON.stringify(request?.headers)).not.toContain(token);
  expect(urls.join(" ")).not.toContain(token);
}

describe("a remote worker's model relay, for every agent API", () => {
  it("relays Claude Code's Messages request (x-api-key, ?beta=true) with the real key put on at the dashboard, metered", async () => {
    const { runId, token } = await openRun("claude-code");
    const before = seen.length;
    const res = await askClaude({ root, token, body: claudeTurn("relay-hello") });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toContain("hello through the relay");
    expect(text).not.toContain(REAL_KEY);
    expect(seen.length).toBe(before + 1);
    expect(seen.at(-1)?.api).toBe("anthropic");
    expect(urls.at(-1)).toBe("/v1/messages?beta=true");
    expectOnlyTheRealKey(token, "x-api-key");
    expect(seen.at(-1)?.headers["anthropic-beta"]).toBe("claude-code-20250219,interleaved-thinking-2025-05-14");
    // metered at the dashboard, read back by the worker before the container saw the answer end
    expect(relayed.usage(runId)).toMatchObject({ inputTokens: USAGE.inputTokens, outputTokens: USAGE.outputTokens });
    expect(relayed.reportedModel(runId)).toBe("relay-hello");
  });

  it("relays Gemini CLI's request (x-goog-api-key, or the token as ?key=, which never leaves the worker)", async () => {
    const { runId, token } = await openRun("gemini-cli");
    const res = await askGemini({ root, token, model: "relay-hello" });
    const text = await res.text();
    expect(res.status, text).toBe(200);
    expect(text).toContain("hello through the relay");
    expect(seen.at(-1)?.api).toBe("gemini");
    expect(urls.at(-1)).toBe("/v1beta/models/relay-hello:streamGenerateContent?alt=sse");
    expectOnlyTheRealKey(token, "x-goog-api-key");
    const query = await askGemini({ root, token, model: "relay-hello", method: "generateContent", tokenIn: "query" });
    expect(query.status, await query.text()).toBe(200);
    expect(urls.at(-1)).toBe("/v1beta/models/relay-hello:generateContent");
    expectOnlyTheRealKey(token, "x-goog-api-key");
    expect(relayed.usage(runId)).toMatchObject({
      inputTokens: 2 * USAGE.inputTokens,
      outputTokens: 2 * USAGE.outputTokens,
    });
  });

  it("still relays Codex's Responses request (Bearer), as before", async () => {
    const { runId, token } = await openRun("codex");
    const res = await askResponses(token);
    expect(res.status).toBe(200);
    expect(await res.text()).toContain("response.completed");
    expectOnlyTheRealKey(token, "authorization");
    expect(relayed.usage(runId)).toMatchObject({ outputTokens: USAGE.outputTokens });
  });

  it("keeps the run pinned to its harness's API through the relay: 403 in the caller's shape, never forwarded", async () => {
    const claude = await openRun("claude-code");
    const gemini = await openRun("gemini-cli");
    const before = seen.length;
    const onResponses = await askResponses(claude.token);
    expect(onResponses.status).toBe(403);
    expect(((await onResponses.json()) as { error: { message: string } }).error.message).toBe(
      "This run's token is for Claude Code's Anthropic Messages API; it cannot call POST /v1/responses.",
    );
    const onMessages = await askClaude({ root, token: gemini.token, body: claudeTurn("relay-hello") });
    expect(onMessages.status).toBe(403);
    expect(await onMessages.json()).toMatchObject({ type: "error", error: { type: "permission_error" } });
    const onGemini = await askGemini({ root, token: claude.token, model: "relay-hello", tokenIn: "query" });
    expect(onGemini.status).toBe(403);
    const refusal = await onGemini.text();
    expect(refusal).toContain("PERMISSION_DENIED");
    expect(refusal).not.toContain(claude.token);
    expect(seen.length).toBe(before);
  });

  it("budgets a Claude Code and a Gemini CLI run at the dashboard: told once, then 429 in the API's shape", async () => {
    for (const kind of ["claude-code", "gemini-cli"] as const) {
      const { runId, token } = await openRun(kind, 500);
      const ask = () =>
        kind === "claude-code"
          ? askClaude({ root, token, body: claudeTurn("relay-hello") })
          : askGemini({ root, token, model: "relay-hello" });
      const first = await ask();
      expect(first.status).toBe(200);
      await first.text();
      expect(relayed.budgetReached(runId)).toBe(true);
      expect(exceeded).toContain(runId);
      const over = await ask();
      expect(over.status).toBe(429);
      const body = await over.text();
      expect(body).toContain(kind === "claude-code" ? "rate_limit_error" : "RESOURCE_EXHAUSTED");
    }
  });

  it("refuses an unknown token in the API's shape, and paths that are no model API without asking the dashboard", async () => {
    const unknown = await askClaude({ root, token: "iwrun_not-a-token", body: claudeTurn("relay-hello") });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ type: "error", error: { type: "authentication_error" } });
    const { token } = await openRun("command");
    const other = await fetch(`${root}/api/worker/hello`, { headers: { authorization: `Bearer ${token}` } });
    expect(other.status).toBe(404);
  });
});
