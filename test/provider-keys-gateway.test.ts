import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { modelAccessOptions } from "../src/server/core/gateway/gateway-options";
import { removeStoredApiKey, storeApiKey } from "../src/server/core/credentials/stored-api-key";
import { tempDir } from "./support/temp";
import {
  ANTHROPIC_KEY,
  askClaude,
  askGemini,
  claudeTurn,
  GOOGLE_KEY,
  startProviderRig,
  type ProviderRig,
} from "./support/provider-gateway-rig";

/**
 * The wiring of sign-in per provider (issue 27, point 3): the gateway options every gateway is built with
 * (the worker's, the web process's for sessions and remote workers' trials: modelAccessOptions) give
 * Anthropic and Google requests the key stored with `invariant-web login --provider …`, looked up per
 * request, and ANTHROPIC_API_KEY / GEMINI_API_KEY as config.ts read them before it. The mock model stands
 * in for each provider and accepts only that provider's real key.
 */
describe("stored provider keys reach the gateway", () => {
  const dataDir = tempDir("provider-keys-gateway");
  let rig: ProviderRig;
  let environment: { anthropicApiKey?: string; googleApiKey?: string } = {};
  beforeAll(async () => {
    const config = {
      openaiApiKey: null,
      codexHome: tempDir("no-codex"),
      upstreamBaseUrl: "http://127.0.0.1:9/v1",
      // read at each request, as the launcher's config object is
      get anthropicApiKey() {
        return environment.anthropicApiKey;
      },
      get googleApiKey() {
        return environment.googleApiKey;
      },
    };
    const { credential } = modelAccessOptions({ config, dataDir, log: () => undefined });
    rig = await startProviderRig({ credential });
  });
  afterAll(async () => {
    await rig.close();
    const logs = rig.logs.join("\n");
    for (const key of [ANTHROPIC_KEY, GOOGLE_KEY]) expect(logs).not.toContain(key);
  });

  it("answers 401 naming the login command before a key is stored, and uses the stored key from the next request", async () => {
    const token = rig.gateway.issueRunToken({ runId: "signed-in-later" });
    const before = await askClaude({ root: rig.root, token, body: claudeTurn("done") });
    expect(before.status).toBe(401);
    expect(JSON.stringify(await before.json())).toMatch(/invariant-web login --provider anthropic/);

    storeApiKey({ dataDir, apiKey: ANTHROPIC_KEY, provider: "anthropic" });
    storeApiKey({ dataDir, apiKey: GOOGLE_KEY, provider: "google" });
    const claude = await askClaude({ root: rig.root, token, body: claudeTurn("done") });
    expect(claude.status).toBe(200);
    await claude.text();
    const gemini = await askGemini({ root: rig.root, token, model: "done" });
    expect(gemini.status).toBe(200);
    await gemini.text();
    // each upstream saw its own stored key (the mocks refuse any other), never the run token
    expect(rig.seen.anthropic.length).toBeGreaterThan(0);
    expect(rig.seen.google.length).toBeGreaterThan(0);

    removeStoredApiKey(dataDir, "google");
    const after = await askGemini({ root: rig.root, token, model: "done" });
    expect(after.status).toBe(401);
    expect(JSON.stringify(await after.json())).toMatch(/invariant-web login --provider google/);
  });

  it("puts the environment variable before the stored key", async () => {
    const token = rig.gateway.issueRunToken({ runId: "environment-first" });
    storeApiKey({ dataDir, apiKey: GOOGLE_KEY, provider: "google" });
    environment = { googleApiKey: "AIza-from-the-environment-not-the-mock-key" };
    // the mock accepts only the stored key: the environment's wins, so Google refuses it
    const gemini = await askGemini({ root: rig.root, token, model: "done" });
    expect(gemini.status).not.toBe(200);
    await gemini.text();
    environment = {};
    const again = await askGemini({ root: rig.root, token, model: "done" });
    expect(again.status).toBe(200);
    await again.text();
  });
});
