import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { locateClaudeCode, locateGeminiCli } from "./agent-packages";

function writePackage(dir: string, name: string, version: string) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "package.json"), JSON.stringify({ name, version }));
}

describe("locating the agent CLIs' packages", () => {
  it("finds Claude Code's platform package nested under @anthropic-ai/claude-code when npm did not hoist it", () => {
    const root = tempDir("agent-packages");
    writePackage(root, "host", "1.0.0");
    const wrapper = path.join(root, "node_modules", "@anthropic-ai", "claude-code");
    writePackage(wrapper, "@anthropic-ai/claude-code", "2.1.332");
    const platform = path.join(wrapper, "node_modules", "@anthropic-ai", "claude-code-linux-x64");
    writePackage(platform, "@anthropic-ai/claude-code-linux-x64", "2.1.332");
    fs.writeFileSync(path.join(platform, "claude"), "#!/bin/sh\n", { mode: 0o755 });
    const from = path.join(root, "index.js");
    expect(locateClaudeCode({ arch: "x64", from })).toEqual({
      binary: path.join(platform, "claude"),
      version: "2.1.332",
    });
    expect(locateClaudeCode({ arch: "arm64", from })).toBeNull(); // no such platform package there
    expect(locateClaudeCode({ arch: "ia32", from })).toBeNull();
  });

  it("finds this package's own Claude Code, Gemini CLI and Node.js for containers", () => {
    expect(locateClaudeCode()?.version).toMatch(/^\d+\.\d+\.\d+$/);
    const gemini = locateGeminiCli();
    expect(gemini?.version).toMatch(/^\d+\.\d+\.\d+$/);
    expect(gemini?.nodeVersion).toMatch(/^\d+\.\d+\.\d+$/);
    expect(fs.existsSync(path.join(gemini?.bundleDir ?? "", "gemini.js"))).toBe(true);
  });
});
