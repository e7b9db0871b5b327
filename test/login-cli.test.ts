import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./support/temp";
import { BIN, cleanEnv, ROOT } from "./support/launch";

const KEY = "sk-login-RECOGNISABLE-31337";

/** The built `invariant-web login|logout` with a key on stdin, no OPENAI_API_KEY and an empty Codex home. */
function cli(dataDir: string, args: string[], input = "", env: Record<string, string> = {}) {
  const base: NodeJS.ProcessEnv = { ...cleanEnv(), CODEX_HOME: tempDir("no-codex"), ...env };
  if (!env.OPENAI_API_KEY) delete base.OPENAI_API_KEY;
  return spawnSync(process.execPath, [BIN, ...args, "--data-dir", dataDir], {
    cwd: ROOT,
    env: base,
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
}

describe("invariant-web login / logout", () => {
  it("stores a piped key with mode 600, never prints it, and logout removes it", () => {
    const dataDir = tempDir("login");
    const login = cli(dataDir, ["login"], `${KEY}\n`);
    expect(login.status, login.stderr).toBe(0);
    expect(login.stderr).toMatch(
      /Stored the API key in .*credentials \(mode 600\)\. Model access now: The API key stored/,
    );
    expect(login.stdout + login.stderr).not.toContain(KEY);
    const file = path.join(dataDir, "credentials", "openai-api-key");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, "utf8").trim()).toBe(KEY);

    const withEnv = cli(dataDir, ["logout"], "", { OPENAI_API_KEY: "sk-from-env" });
    expect(withEnv.stderr).toMatch(
      /^Removed the stored API key\. Model access now: OPENAI_API_KEY from the environment/,
    );
    expect(fs.existsSync(file)).toBe(false);
    const again = cli(dataDir, ["logout"]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/^No API key was stored\. Model access now: No model access/);
  });

  it("refuses what is not a key with exit 2, writing nothing and echoing nothing", () => {
    const dataDir = tempDir("login");
    for (const input of ["", "  \n", `${KEY} ${KEY}\n`]) {
      const refused = cli(dataDir, ["login"], input);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/^invariant-web login: (Paste an API key|An API key has no spaces)/);
      expect(refused.stderr).not.toContain(KEY);
    }
    expect(fs.existsSync(path.join(dataDir, "credentials", "openai-api-key"))).toBe(false);
  });
});
