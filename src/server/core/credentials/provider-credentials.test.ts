import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { checkApiKey } from "./api-key-format";
import { describeProviderAccess, harnessAccess, notSignedInMessage, providerApiKey } from "./provider-access";
import { readStoredApiKey, removeStoredApiKey, storeApiKey, storedKeyEnding, storedKeyPaths } from "./stored-api-key";

const ANTHROPIC_KEY = "sk-ant-api03-unit-RECOGNISABLE-abcd";
const GOOGLE_KEY = "AIzaSyUnit-RECOGNISABLE-wxyz";

describe("each provider's stored key", () => {
  it("is refused before anything is written when it is empty, has whitespace or is another provider's", () => {
    const dataDir = tempDir("provider-keys");
    const refusals: [string, "openai" | "anthropic" | "google", RegExp][] = [
      ["", "anthropic", /^Paste an Anthropic API key \(it starts with sk-ant-\)\.$/],
      [" \n ", "google", /^Paste a Google API key \(it starts with AIza\)\.$/],
      ["sk-ant-api03-one\nsk-ant-two", "anthropic", /no spaces, line breaks/],
      [
        ANTHROPIC_KEY,
        "google",
        /^That looks like an Anthropic API key .*not a Google one\. Store it as the Anthropic key/,
      ],
      [GOOGLE_KEY, "openai", /^That looks like a Google API key .*not an OpenAI one/],
      ["sk-proj-abc123", "anthropic", /^That looks like an OpenAI API key .*not an Anthropic one/],
      ["sk-ant-api03-x", "openai", /^That looks like an Anthropic API key/],
      ["x".repeat(1001), "openai", /longer than any API key \(1001 characters\)/],
    ];
    for (const [key, provider, message] of refusals) {
      expect(() => storeApiKey({ dataDir, apiKey: key, provider }), `${provider}: ${key.slice(0, 20)}`).toThrow(
        message,
      );
      try {
        checkApiKey(key, provider);
      } catch (error) {
        // the message says what to do, never the key itself
        if (key.length > 3) expect((error as Error).message).not.toContain(key.trim());
      }
    }
    expect(fs.existsSync(storedKeyPaths(dataDir).dir)).toBe(false);
  });

  it("lives in its own 0600 file, read back trimmed; only its last four characters are shown", () => {
    const dataDir = tempDir("provider-keys");
    storeApiKey({ dataDir, apiKey: ` ${ANTHROPIC_KEY}\n`, provider: "anthropic" });
    storeApiKey({ dataDir, apiKey: GOOGLE_KEY, provider: "google" });
    const file = storedKeyPaths(dataDir, "anthropic").file;
    expect(path.basename(file)).toBe("anthropic-api-key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(path.dirname(file)).sort()).toEqual(["anthropic-api-key", "google-api-key"]);
    expect(readStoredApiKey(dataDir, "anthropic")).toBe(ANTHROPIC_KEY);
    expect(readStoredApiKey(dataDir, "openai")).toBeNull();
    expect(storedKeyEnding(dataDir, "google")).toBe("wxyz");
    const views = describeProviderAccess({ dataDir, environmentKey: false, codexHome: tempDir("no-codex") });
    expect(JSON.stringify(views)).not.toContain("RECOGNISABLE");
    expect(harnessAccess(views).map((h) => [h.kind, h.usable])).toEqual([
      ["codex", false],
      ["claude-code", true],
      ["gemini-cli", true],
    ]);
    fs.chmodSync(file, 0o644);
    expect(() => readStoredApiKey(dataDir, "anthropic")).toThrow(
      /can be read by other users \(mode 644\).*invariant-web login --provider anthropic/,
    );
    expect(removeStoredApiKey(dataDir, "anthropic")).toBe(true);
    expect(removeStoredApiKey(dataDir, "anthropic")).toBe(false);
    expect(readStoredApiKey(dataDir, "google")).toBe(GOOGLE_KEY);
  });

  it("gives the gateway the environment variable first, then the stored key, then nothing", () => {
    const dataDir = tempDir("provider-keys");
    expect(providerApiKey({ provider: "anthropic", environmentKey: null, dataDir })).toBeNull();
    storeApiKey({ dataDir, apiKey: ANTHROPIC_KEY, provider: "anthropic" });
    expect(providerApiKey({ provider: "anthropic", dataDir })).toEqual({ apiKey: ANTHROPIC_KEY, source: "stored key" });
    expect(providerApiKey({ provider: "anthropic", environmentKey: " sk-ant-env ", dataDir })).toEqual({
      apiKey: "sk-ant-env",
      source: "ANTHROPIC_API_KEY",
    });
    // a stored key of another provider is no key for this one
    expect(providerApiKey({ provider: "google", dataDir })).toBeNull();
    expect(notSignedInMessage("google", dataDir)).toBe(
      `No Google access: GEMINI_API_KEY or GOOGLE_API_KEY is not set and no key is stored in ${dataDir}/credentials. ` +
        "Store a key with `invariant-web login --provider google` or on the Setup page, or set GEMINI_API_KEY where invariant-web starts.",
    );
    const [, anthropic] = describeProviderAccess({
      dataDir,
      environmentKey: false,
      codexHome: tempDir("no-codex"),
      environmentKeys: { anthropic: true },
    });
    expect(anthropic).toMatchObject({ source: "environment", storedKeyEnding: "abcd" });
    expect(anthropic?.summary).toBe(
      "ANTHROPIC_API_KEY from the environment invariant-web was started in (it wins over the stored key).",
    );
  });
});
