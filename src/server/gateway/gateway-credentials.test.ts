import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../test/support/temp";
import { isAppError } from "../errors/app-error";
import { resolveGatewayCredential } from "./gateway-credentials";

const KEY = "sk-test-RECOGNISABLE-123";

function codexHomeWith(authJson: string | null): string {
  const dir = tempDir("codex-home");
  if (authJson !== null) fs.writeFileSync(path.join(dir, "auth.json"), authJson);
  return dir;
}

function failure(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected an error");
}

describe("gateway credentials", () => {
  it("prefers OPENAI_API_KEY, then an API key in the Codex home's auth.json", () => {
    const home = codexHomeWith(JSON.stringify({ OPENAI_API_KEY: "sk-from-file", tokens: null, last_refresh: null }));
    expect(resolveGatewayCredential({ openaiApiKey: KEY, codexHome: home })).toEqual({
      apiKey: KEY,
      source: "OPENAI_API_KEY",
    });
    expect(resolveGatewayCredential({ openaiApiKey: "  ", codexHome: home })).toEqual({
      apiKey: "sk-from-file",
      source: "auth.json",
    });
    expect(resolveGatewayCredential({ openaiApiKey: null, codexHome: home })).toEqual({
      apiKey: "sk-from-file",
      source: "auth.json",
    });
  });

  it("refuses a ChatGPT sign-in, a missing or unreadable file, with how to sign in — and never echoes a key", () => {
    const chatgpt = codexHomeWith(
      JSON.stringify({
        OPENAI_API_KEY: null,
        auth_mode: "chatgpt",
        tokens: {
          id_token: "eyJ-secret-id",
          access_token: "eyJ-secret-access",
          refresh_token: "rt-secret",
          account_id: "acc",
        },
        last_refresh: "2026-11-01T00:00:00Z",
      }),
    );
    const refused = failure(() => resolveGatewayCredential({ codexHome: chatgpt }));
    expect(refused.code).toBe("PRECONDITION_FAILED");
    expect(refused.message).toMatch(/signed in with ChatGPT/);
    expect(refused.message).toMatch(/OPENAI_API_KEY/);
    expect(refused.message).toContain("codex login --with-api-key");
    expect(refused.message).not.toMatch(/secret/);

    const missing = failure(() => resolveGatewayCredential({ codexHome: codexHomeWith(null) }));
    expect(missing.message).toMatch(
      /OPENAI_API_KEY is not set and there is no .*auth\.json\. Give invariant-web an OpenAI API key/,
    );
    expect(
      failure(() => resolveGatewayCredential({ codexHome: codexHomeWith(`{"OPENAI_API_KEY": "${KEY}"`) })).message,
    ).not.toContain(KEY);
    expect(failure(() => resolveGatewayCredential({ codexHome: codexHomeWith("{}") })).message).toMatch(
      /holds no API key/,
    );
  });
});
