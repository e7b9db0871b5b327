import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { isAppError } from "../errors/app-error";
import {
  checkApiKey,
  readStoredApiKey,
  removeStoredApiKey,
  storeApiKey,
  storedKeyInfo,
  storedKeyPaths,
} from "../credentials/stored-api-key";
import { createCredentialSources } from "./gateway-credentials";

const KEY = "sk-test-RECOGNISABLE-123";

function codexHomeWith(authJson: string | null): string {
  const dir = tempDir("codex-home");
  if (authJson !== null) fs.writeFileSync(path.join(dir, "auth.json"), authJson);
  return dir;
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected an error");
}

describe("gateway credentials", () => {
  it("uses OPENAI_API_KEY first, then the key stored in the data dir, then the host Codex's auth.json", async () => {
    const codexHome = codexHomeWith(JSON.stringify({ OPENAI_API_KEY: "sk-from-file", tokens: null }));
    const dataDir = tempDir("data");
    const sources = (openaiApiKey: string | null) => createCredentialSources({ openaiApiKey, dataDir, codexHome });
    expect(await sources("  ").current()).toEqual({ kind: "api-key", apiKey: "sk-from-file", source: "auth.json" });
    storeApiKey({ dataDir, apiKey: ` ${KEY}\n` });
    expect(await sources(null).current()).toEqual({ kind: "api-key", apiKey: KEY, source: "stored key" });
    expect(await sources("sk-env").current()).toEqual({ kind: "api-key", apiKey: "sk-env", source: "OPENAI_API_KEY" });
    // looked up per request: logout applies at once
    const live = sources(null);
    expect((await live.current()).source).toBe("stored key");
    expect(removeStoredApiKey(dataDir)).toBe(true);
    expect(removeStoredApiKey(dataDir)).toBe(false);
    expect((await live.current()).source).toBe("auth.json");
  });

  it("stores the key with mode 600 in a 700 folder, tells only when it was set, and refuses a readable file", () => {
    const dataDir = tempDir("data");
    expect(storedKeyInfo(dataDir)).toBeNull();
    const { storedAt } = storeApiKey({ dataDir, apiKey: KEY });
    const { dir, file } = storedKeyPaths(dataDir);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readdirSync(dir)).toEqual(["openai-api-key"]);
    expect(storedKeyInfo(dataDir)).toEqual({ storedAt });
    expect(JSON.stringify(storedKeyInfo(dataDir))).not.toContain(KEY);
    expect(readStoredApiKey(dataDir)).toBe(KEY);
    fs.chmodSync(file, 0o644);
    expect(() => readStoredApiKey(dataDir)).toThrow(/can be read by other users \(mode 644\)/);
  });

  it("refuses what cannot be a key, without echoing it", () => {
    for (const bad of ["", "   ", `${KEY} ${KEY}`, `${KEY}\n2`, "x".repeat(1001)]) {
      let message = "";
      try {
        checkApiKey(bad);
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toMatch(/Paste|key/);
      if (bad.trim()) expect(message).not.toContain(bad.trim());
    }
  });

  it("uses a ChatGPT sign-in's access token and account id", async () => {
    const home = codexHomeWith(
      JSON.stringify({
        OPENAI_API_KEY: null,
        tokens: { id_token: "x", access_token: "eyJ-access", refresh_token: "rt-secret", account_id: "acc" },
      }),
    );
    const sources = createCredentialSources({ codexHome: home, dataDir: tempDir("data") });
    expect(await sources.current()).toEqual({
      kind: "chatgpt",
      accessToken: "eyJ-access",
      accountId: "acc",
      source: "auth.json",
    });
    expect(sources.extraSecrets()).toEqual(["eyJ-access", "rt-secret", "x"]);
  });

  it("says how to sign in when there is nothing usable — and never echoes a key", async () => {
    const dataDir = tempDir("data");
    const missing = await failure(createCredentialSources({ codexHome: codexHomeWith(null), dataDir }).current());
    expect(missing.code).toBe("PRECONDITION_FAILED");
    expect(missing.message).toMatch(
      /OPENAI_API_KEY is not set, no key is stored in .*credentials, and there is no .*auth\.json\. Give invariant-web model access: store an OpenAI API key on the Setup page or with `invariant-web login`/,
    );
    const broken = await failure(
      createCredentialSources({ codexHome: codexHomeWith(`{"OPENAI_API_KEY": "${KEY}"`), dataDir }).current(),
    );
    expect(broken.message).toMatch(/is not the JSON Codex writes/);
    expect(broken.message).not.toContain(KEY);
    expect(
      (await failure(createCredentialSources({ codexHome: codexHomeWith("{}"), dataDir }).current())).message,
    ).toMatch(/holds neither an API key nor a ChatGPT sign-in/);
  });
});
