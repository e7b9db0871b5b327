import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { storeApiKey } from "../credentials/stored-api-key";
import { tempDir } from "../../../../test/support/temp";
import { modelAccessOptions } from "./gateway-options";

/**
 * The wiring's credential lookup per provider (what the workers' and the web process's gateways get):
 * Anthropic's and Google's key from ANTHROPIC_API_KEY / GEMINI_API_KEY as config.ts read them, else the
 * key stored in the data dir, looked up at each request; none: an error that says how to sign in.
 */
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function optionsFor(keys: { anthropicApiKey?: string; googleApiKey?: string }) {
  const dataDir = tempDir("gateway-options");
  dirs.push(dataDir);
  const config = {
    openaiApiKey: "sk-openai-env-0001",
    codexHome: path.join(dataDir, "no-codex"),
    upstreamBaseUrl: "https://api.openai.com/v1",
    ...keys,
  };
  return { dataDir, options: modelAccessOptions({ config, dataDir, log: () => undefined }) };
}

describe("model access per provider", () => {
  it("gives each provider its own key: the environment's first, then the stored one, read at each request", async () => {
    const { dataDir, options } = optionsFor({ anthropicApiKey: "sk-ant-env-0002" });
    expect(await options.credential("openai")).toMatchObject({
      apiKey: "sk-openai-env-0001",
      source: "OPENAI_API_KEY",
    });
    expect(await options.credential("anthropic")).toMatchObject({
      kind: "api-key",
      apiKey: "sk-ant-env-0002",
      source: "ANTHROPIC_API_KEY",
    });
    expect(() => options.credential("google")).toThrow(
      /No Google access: .*`invariant-web login --provider google`.*GEMINI_API_KEY/,
    );
    storeApiKey({ dataDir, provider: "google", apiKey: "AIza-stored-0003" });
    expect(await options.credential("google")).toMatchObject({ apiKey: "AIza-stored-0003", source: "stored key" });
  });

  it("prefers GEMINI_API_KEY (as config.ts read it) over a stored Google key", async () => {
    const { dataDir, options } = optionsFor({ googleApiKey: "AIza-env-0004" });
    storeApiKey({ dataDir, provider: "google", apiKey: "AIza-stored-0005" });
    expect(await options.credential("google")).toMatchObject({ apiKey: "AIza-env-0004", source: "GEMINI_API_KEY" });
    expect(() => options.credential("anthropic")).toThrow(/--provider anthropic/);
  });
});
