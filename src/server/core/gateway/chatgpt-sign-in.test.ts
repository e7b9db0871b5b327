import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodexOnHost } from "../../../../test/support/codex-host";
import { STAND_IN_ACCOUNT, startChatgptStandIn, type ChatgptStandIn } from "../../../../test/support/chatgpt-stand-in";
import { tempDir, REPO_ROOT } from "../../../../test/support/temp";
import { codexRunOutcome } from "../agents/codex-outcome";
import { startMockModel, type MockModelServer } from "../mock-model/mock-model-server";
import { createCredentialSources } from "./gateway-credentials";
import { startModelGateway, type ModelGateway } from "./model-gateway";

/**
 * A ChatGPT-account sign-in of the host's Codex (auth.json with tokens), used by the gateway as Codex
 * uses it: the real Codex binary → gateway → a local stand-in of the ChatGPT endpoint (checks the
 * access token and the account header) → the mock model; a local stand-in token issuer refreshes.
 */
const SHIPPED_SCRIPTS = path.join(REPO_ROOT, "mock-scripts");

describe("the model gateway with the host's ChatGPT sign-in", () => {
  let mock: MockModelServer;
  let standIn: ChatgptStandIn;
  const logs: string[] = [];
  const secrets: string[] = [];

  beforeAll(async () => {
    mock = await startMockModel({ scriptsDir: SHIPPED_SCRIPTS });
    standIn = await startChatgptStandIn({ modelUrl: mock.url });
  });
  afterAll(async () => {
    await standIn.close();
    await mock.close();
  });

  /** A host Codex home signed in with ChatGPT, and a gateway that uses it (no API key anywhere). */
  async function signedIn(tokens: { accessToken: string; refreshToken: string; idToken: string }) {
    secrets.push(tokens.accessToken, tokens.refreshToken);
    const codexHome = tempDir("host-codex");
    fs.writeFileSync(
      path.join(codexHome, "auth.json"),
      JSON.stringify({
        OPENAI_API_KEY: null,
        tokens: { id_token: tokens.idToken, access_token: tokens.accessToken, refresh_token: tokens.refreshToken },
        last_refresh: "2026-11-01T00:00:00Z",
      }),
      { mode: 0o600 },
    );
    const sources = createCredentialSources({
      codexHome,
      dataDir: tempDir("data"),
      tokenUrl: standIn.tokenUrl,
      log: (line) => logs.push(line),
    });
    const gateway: ModelGateway = await startModelGateway({
      upstreamBaseUrl: "http://127.0.0.1:9/v1", // the API-key upstream: never used with this sign-in
      chatgptBaseUrl: standIn.baseUrl,
      credential: () => sources.current(),
      afterUnauthorized: (used) => sources.afterUnauthorized(used),
      extraSecrets: () => sources.extraSecrets(),
      log: (line) => logs.push(line),
    });
    return { codexHome, gateway };
  }

  async function runHello(gateway: ModelGateway, runId: string) {
    const dir = tempDir("codex-run");
    const run = await runCodexOnHost({
      model: "hello",
      baseUrl: gateway.url,
      token: gateway.issueRunToken({ runId, policy: { model: "hello", hostedTools: false } }),
      prompt: "Say hello.",
      cwd: path.join(dir, "workspace"),
      codexHome: path.join(dir, "codex-home"),
      home: path.join(dir, "home"),
    });
    const outcome = codexRunOutcome({
      state: run.state,
      exit: { exitCode: run.exitCode, upstreamError: gateway.lastUpstreamError(runId) },
    });
    return { run, outcome };
  }

  it("sends the access token and the account header to the ChatGPT endpoint", async () => {
    const tokens = standIn.issue(3600_000);
    const { gateway } = await signedIn(tokens);
    const before = standIn.providerRequests.length;
    const { run, outcome } = await runHello(gateway, "plain");
    await gateway.close();
    expect(run.exitCode, run.stderr).toBe(0);
    expect(outcome.status).toBe("succeeded");
    const seen = standIn.providerRequests.slice(before);
    expect(seen).toHaveLength(2); // one shell command, then the reply
    for (const request of seen)
      expect(request).toEqual({
        authorization: `Bearer ${tokens.accessToken}`,
        account: STAND_IN_ACCOUNT,
        status: 200,
      });
    expect(standIn.refreshCalls).toHaveLength(0);
  });

  it("refreshes an expired access token once (writing it back to auth.json) and the run continues", async () => {
    const tokens = standIn.issue(-60_000); // expired a minute ago
    const { gateway, codexHome } = await signedIn(tokens);
    const calls = standIn.refreshCalls.length;
    const { run, outcome } = await runHello(gateway, "expired");
    expect(run.exitCode, run.stderr).toBe(0);
    expect(outcome.status).toBe("succeeded");
    expect(standIn.refreshCalls.slice(calls)).toEqual([
      { client_id: "app_EMoamEEZ73f0CkXaXp7hrann", grant_type: "refresh_token", refresh_token: tokens.refreshToken },
    ]);
    const saved = JSON.parse(fs.readFileSync(path.join(codexHome, "auth.json"), "utf8")) as {
      tokens: { access_token: string; refresh_token: string };
      last_refresh: string;
    };
    expect(saved.tokens.access_token).not.toBe(tokens.accessToken);
    expect(saved.tokens.refresh_token).not.toBe(tokens.refreshToken);
    expect(Date.parse(saved.last_refresh)).toBeGreaterThan(Date.now() - 60_000);
    expect(fs.statSync(path.join(codexHome, "auth.json")).mode & 0o777).toBe(0o600);
    secrets.push(saved.tokens.access_token, saved.tokens.refresh_token);

    // a token the provider rejects before its exp (401): refreshed once, the request retried, the run goes on
    standIn.revoke(saved.tokens.access_token);
    const again = await runHello(gateway, "revoked");
    await gateway.close();
    expect(again.run.exitCode, again.run.stderr).toBe(0);
    expect(standIn.refreshCalls.slice(calls)).toHaveLength(2);
  });

  it("ends the run with how to sign in again when the refresh is refused, and asks the issuer only once", async () => {
    const tokens = standIn.issue(-60_000);
    const { gateway } = await signedIn(tokens);
    standIn.refuseRefresh();
    const calls = standIn.refreshCalls.length;
    const { run, outcome } = await runHello(gateway, "refused");
    expect(run.exitCode).toBe(1);
    expect(outcome.status).toBe("failed");
    expect(outcome.status === "failed" && outcome.reason).toMatch(
      /could not be refreshed \(the sign-in service answered HTTP 401: refresh_token_expired\)\. Sign in again on the host: `codex login`/,
    );
    const second = await runHello(gateway, "refused-again");
    await gateway.close();
    expect(second.outcome.status === "failed" && second.outcome.reason).toMatch(/Sign in again on the host/);
    expect(standIn.refreshCalls.slice(calls)).toHaveLength(1);
  });

  it("never logs a token", () => {
    const text = logs.join("\n");
    expect(text).toMatch(/refreshed the ChatGPT access token/);
    for (const secret of secrets) expect(text).not.toContain(secret);
  });
});
