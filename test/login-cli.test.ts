import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "./support/temp";
import { BIN, cleanEnv, ROOT } from "./support/launch";

const KEY = "sk-login-RECOGNISABLE-31337";
const ANTHROPIC_KEY = "sk-ant-api03-login-RECOGNISABLE-4242";
const GOOGLE_KEY = "AIzaSyLogin-RECOGNISABLE-0815";
const KEY_VARIABLES = ["OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GEMINI_API_KEY", "GOOGLE_API_KEY"];

/** The built `invariant-web login|logout|doctor` with stdin, no provider's key variable and an empty Codex home. */
function cli(dataDir: string, args: string[], input = "", env: Record<string, string> = {}) {
  const base: NodeJS.ProcessEnv = { ...cleanEnv(), CODEX_HOME: tempDir("no-codex") };
  for (const name of KEY_VARIABLES) delete base[name];
  return spawnSync(process.execPath, [BIN, ...args, "--data-dir", dataDir], {
    cwd: ROOT,
    env: { ...base, ...env },
    input,
    encoding: "utf8",
    timeout: 60_000,
  });
}

const keyFile = (dataDir: string, provider: string) => path.join(dataDir, "credentials", `${provider}-api-key`);

describe("invariant-web login / logout", () => {
  it("stores a piped key with mode 600, never prints it, and logout removes it", () => {
    const dataDir = tempDir("login");
    const login = cli(dataDir, ["login"], `${KEY}\n`);
    expect(login.status, login.stderr).toBe(0);
    expect(login.stderr).toMatch(
      /Stored the OpenAI API key in .*credentials\/openai-api-key \(mode 600\)\. Model access now:/,
    );
    expect(login.stderr).toMatch(/✓ OpenAI +The API key stored in the data dir\. Stored key ends in …1337\./);
    expect(login.stderr).toMatch(/✗ Anthropic +No Anthropic access/);
    expect(login.stderr).toContain("Harnesses: Codex usable; Claude Code, Gemini CLI not");
    expect(login.stdout + login.stderr).not.toContain(KEY);
    const file = keyFile(dataDir, "openai");
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(fs.readFileSync(file, "utf8").trim()).toBe(KEY);

    const withEnv = cli(dataDir, ["logout"], "", { OPENAI_API_KEY: "sk-from-env" });
    expect(withEnv.stderr).toMatch(
      /^Removed the stored OpenAI API key\. Model access now:\n✓ OpenAI +OPENAI_API_KEY from the environment/,
    );
    expect(fs.existsSync(file)).toBe(false);
    const again = cli(dataDir, ["logout"]);
    expect(again.status).toBe(0);
    expect(again.stderr).toMatch(/^No OpenAI API key was stored\. Model access now:\n✗ OpenAI +No model access/);
  });

  it("refuses what is not a key with exit 2, writing nothing and echoing nothing", () => {
    const dataDir = tempDir("login");
    for (const input of ["", "  \n", `${KEY} ${KEY}\n`]) {
      const refused = cli(dataDir, ["login"], input);
      expect(refused.status).toBe(2);
      expect(refused.stderr).toMatch(/^invariant-web login: (Paste an OpenAI API key|An API key has no spaces)/);
      expect(refused.stderr).toContain("Nothing was stored.");
      expect(refused.stderr).not.toContain(KEY);
    }
    expect(fs.existsSync(keyFile(dataDir, "openai"))).toBe(false);
  });

  it("stores and removes Anthropic's and Google's keys, each in its own 0600 file; doctor lists every provider", () => {
    const dataDir = tempDir("login");
    const anthropic = cli(dataDir, ["login", "--provider", "anthropic"], `${ANTHROPIC_KEY}\n`);
    expect(anthropic.status, anthropic.stderr).toBe(0);
    expect(anthropic.stderr).toMatch(
      /✓ Anthropic +The Anthropic API key stored in the data dir\. Stored key ends in …4242\./,
    );
    expect(anthropic.stderr).toContain("Harnesses: Claude Code usable; Codex, Gemini CLI not");
    const google = cli(dataDir, ["login", "--provider", "google"], GOOGLE_KEY);
    expect(google.status, google.stderr).toBe(0);
    expect(google.stderr).toContain("Harnesses: Claude Code, Gemini CLI usable; Codex not");
    for (const [provider, key] of [
      ["anthropic", ANTHROPIC_KEY],
      ["google", GOOGLE_KEY],
    ] as const) {
      expect(fs.statSync(keyFile(dataDir, provider)).mode & 0o777).toBe(0o600);
      expect(fs.readFileSync(keyFile(dataDir, provider), "utf8")).toBe(`${key}\n`);
    }
    expect(fs.statSync(path.join(dataDir, "credentials")).mode & 0o777).toBe(0o700);
    expect(anthropic.stderr + anthropic.stdout + google.stderr + google.stdout).not.toMatch(/RECOGNISABLE/);

    const doctor = cli(dataDir, ["doctor", "--json"]);
    const report = JSON.parse(doctor.stdout) as {
      modelAccess: { provider: string; signedIn: boolean; source: string }[];
    };
    expect(report.modelAccess.map(({ provider, signedIn, source }) => ({ provider, signedIn, source }))).toEqual([
      { provider: "openai", signedIn: false, source: "none" },
      { provider: "anthropic", signedIn: true, source: "stored-key" },
      { provider: "google", signedIn: true, source: "stored-key" },
    ]);
    expect(doctor.stdout).not.toContain("RECOGNISABLE");
    const text = cli(dataDir, ["doctor"], "", { GOOGLE_API_KEY: "AIza-from-env" });
    expect(text.stdout).toMatch(
      /Model access:\n✗ OpenAI .*\n✓ Anthropic .*\n✓ Google +GEMINI_API_KEY or GOOGLE_API_KEY from the environment invariant-web was started in \(it wins over the stored key\)/,
    );

    const logout = cli(dataDir, ["logout", "--provider", "anthropic"]);
    expect(logout.stderr).toMatch(/^Removed the stored Anthropic API key\./);
    expect(fs.existsSync(keyFile(dataDir, "anthropic"))).toBe(false);
    expect(fs.existsSync(keyFile(dataDir, "google"))).toBe(true);
  });

  it("refuses another provider's key, an unknown provider and a key on the command line, writing nothing", () => {
    const dataDir = tempDir("login");
    const wrong = cli(dataDir, ["login", "--provider", "google"], `${ANTHROPIC_KEY}\n`);
    expect(wrong.status).toBe(2);
    expect(wrong.stderr).toMatch(
      /^invariant-web login: That looks like an Anthropic API key \(it starts with sk-ant-\), not a Google one\. Store it as the Anthropic key \(invariant-web login --provider anthropic/,
    );
    expect(wrong.stderr).not.toContain(ANTHROPIC_KEY);
    const openaiForAnthropic = cli(dataDir, ["login", "--provider", "anthropic"], KEY);
    expect(openaiForAnthropic.stderr).toMatch(
      /That looks like an OpenAI API key \(it starts with sk-\), not an Anthropic one/,
    );
    const unknown = cli(dataDir, ["login", "--provider", "mistral"], KEY);
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toMatch(/--provider must be openai, anthropic, google \(not "mistral"\)/);
    const inArgv = cli(dataDir, ["login", "--provider", "anthropic", ANTHROPIC_KEY]);
    expect(inArgv.status).toBe(2);
    expect(inArgv.stderr).toMatch(/never from the command line/);
    expect(inArgv.stderr).not.toContain(ANTHROPIC_KEY);
    expect(fs.existsSync(path.join(dataDir, "credentials"))).toBe(false);
  });
});
