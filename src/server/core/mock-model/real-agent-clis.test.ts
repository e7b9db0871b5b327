import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { MockScriptInput } from "./mock-script";
import { startMockModel, type MockModelRequest, type MockModelServer } from "./mock-model-server";

/**
 * The real Claude Code and Gemini CLI binaries (the pinned ones in node_modules) against the mock
 * model, on the host: each runs a scripted task end to end and reports it in its stream-json output,
 * and a scripted failure ends the run at once (retries capped), with nothing sent but model requests.
 */
const ROOT = path.resolve(import.meta.dirname, "..", "..", "..", "..");
const CLAUDE = path.join(ROOT, "node_modules/@anthropic-ai/claude-code-linux-x64/claude");
const GEMINI = path.join(ROOT, "node_modules/@google/gemini-cli/bundle/gemini.js");
const KEY = "mock-key-RECOGNISABLE";
const CONTENT = "Hello, 'quoted' $HOME `tick` \\n\n\u00e9t\u00e9\n";

const scripts: Record<string, MockScriptInput> = {
  "write-then-reply": {
    usage: { inputTokens: 900, cachedInputTokens: 300, outputTokens: 70, reasoningTokens: 10 },
    steps: [
      { kind: "write-file", path: "notes/greeting.txt", content: CONTENT, reasoning: "I will write the file." },
      { kind: "reply", text: "I wrote notes/greeting.txt." },
    ],
  },
  "fail-500": { steps: [{ kind: "fail", status: 500, message: "Scripted outage." }] },
};

interface CliRun {
  code: number | null;
  lines: Record<string, unknown>[];
  stderr: string;
  ms: number;
}

/** Runs a CLI without blocking this process (the mock answers from it) and parses its JSON lines. */
function runCli(options: {
  command: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
}): Promise<CliRun> {
  const began = Date.now();
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(options.command, options.args, {
      cwd: options.cwd,
      // only these variables (Next's global types would require NODE_ENV; the CLIs do not need it)
      env: options.env as NodeJS.ProcessEnv,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.on("error", reject);
    child.on("close", (code) => {
      const lines = stdout
        .split("\n")
        .filter((line) => line.startsWith("{"))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ code, lines, stderr, ms: Date.now() - began });
    });
  });
}

describe("real agent CLIs against the mock model", () => {
  let mock: MockModelServer;
  let dir: string;
  const paths: string[] = [];
  const seen: MockModelRequest[] = [];
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), "mock-real-clis-"));
    mock = await startMockModel({
      scripts,
      apiKey: KEY,
      onHttpRequest: (r) => paths.push(`${r.method} ${r.url}`),
      onRequest: (r) => seen.push(r),
    });
  });
  afterAll(async () => {
    await mock.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A fresh HOME and working directory for one run. */
  function workspace(name: string): { home: string; work: string } {
    const home = path.join(dir, name, "home");
    const work = path.join(dir, name, "work");
    fs.mkdirSync(home, { recursive: true });
    fs.mkdirSync(work, { recursive: true });
    return { home, work };
  }

  function claude(name: string, model: string): Promise<CliRun & { work: string }> {
    const { home, work } = workspace(name);
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      TMPDIR: home,
      IS_SANDBOX: "1",
      ANTHROPIC_BASE_URL: mock.rootUrl,
      ANTHROPIC_API_KEY: KEY,
      DISABLE_AUTOUPDATER: "1",
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_TELEMETRY: "1",
      CLAUDE_CODE_MAX_RETRIES: "0",
    };
    const args = ["-p", "Write the greeting.", "--output-format", "stream-json", "--verbose", "--model", model];
    return runCli({ command: CLAUDE, args: [...args, "--dangerously-skip-permissions"], cwd: work, env }).then(
      (run) => ({ ...run, work }),
    );
  }

  function gemini(name: string, model: string): Promise<CliRun & { work: string }> {
    const { home, work } = workspace(name);
    fs.mkdirSync(path.join(home, ".gemini"));
    const settings = {
      security: { auth: { selectedType: "gemini-api-key" }, folderTrust: { enabled: false } },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      general: { disableAutoUpdate: true, disableUpdateNag: true, maxAttempts: 1 },
    };
    fs.writeFileSync(path.join(home, ".gemini", "settings.json"), JSON.stringify(settings));
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      // Gemini CLI writes an error report into the temp dir: keep it in this run's HOME
      TMPDIR: home,
      GEMINI_API_KEY: KEY,
      GOOGLE_GEMINI_BASE_URL: mock.rootUrl,
    };
    const args = [GEMINI, "-p", "Write the greeting.", "--output-format", "stream-json", "-m", model, "--yolo"];
    return runCli({ command: process.execPath, args, cwd: work, env }).then((run) => ({ ...run, work }));
  }

  it("Claude Code writes the file through Bash and reports success", { timeout: 90_000 }, async () => {
    const run = await claude("claude-ok", "write-then-reply");
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(run.work, "notes/greeting.txt"), "utf8")).toBe(CONTENT);
    expect(run.lines[0]).toMatchObject({ type: "system", subtype: "init", model: "write-then-reply" });
    expect(run.lines.at(-1)).toMatchObject({
      type: "result",
      subtype: "success",
      is_error: false,
      result: "I wrote notes/greeting.txt.",
      usage: { input_tokens: 1200, cache_read_input_tokens: 600, output_tokens: 140 },
    });
    const thinking = run.lines.find((l) => JSON.stringify(l).includes('"type":"thinking"'));
    expect(JSON.stringify(thinking)).toContain("I will write the file.");
    expect(seen.filter((r) => r.api === "anthropic").map((r) => r.stepIndex)).toEqual([0, 1]);
  });

  it("Claude Code ends a run the model fails at once, with retries capped", { timeout: 90_000 }, async () => {
    const before = paths.length;
    const run = await claude("claude-fail", "fail-500");
    expect(run.code).not.toBe(0);
    expect(run.ms).toBeLessThan(30_000);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", is_error: true, api_error_status: 500 });
    expect(String(run.lines.at(-1)?.result)).toContain("Scripted outage.");
    expect(paths.length - before).toBe(1);
  });

  it("Gemini CLI writes the file through run_shell_command and reports success", { timeout: 90_000 }, async () => {
    const run = await gemini("gemini-ok", "write-then-reply");
    expect(run.code, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(run.work, "notes/greeting.txt"), "utf8")).toBe(CONTENT);
    expect(run.lines[0]).toMatchObject({ type: "init", model: "write-then-reply" });
    expect(run.lines).toContainEqual(expect.objectContaining({ type: "tool_use", tool_name: "run_shell_command" }));
    expect(run.lines).toContainEqual(
      expect.objectContaining({ type: "message", role: "assistant", content: "I wrote notes/greeting.txt." }),
    );
    expect(run.lines.at(-1)).toMatchObject({
      type: "result",
      status: "success",
      stats: { input_tokens: 1800, cached: 600, tool_calls: 1 },
    });
    expect(seen.filter((r) => r.api === "gemini").map((r) => r.stepIndex)).toEqual([0, 1]);
  });

  it("Gemini CLI ends a run the model fails at once, with maxAttempts 1", { timeout: 90_000 }, async () => {
    const before = paths.length;
    const run = await gemini("gemini-fail", "fail-500");
    expect(run.code).not.toBe(0);
    expect(run.ms).toBeLessThan(30_000);
    expect(run.lines.at(-1)).toMatchObject({ type: "result", status: "error" });
    expect(JSON.stringify(run.lines.at(-1))).toContain("Scripted outage.");
    expect(paths.length - before).toBe(1);
  });

  it("the CLIs sent the mock nothing but model requests", () => {
    expect(paths.length).toBeGreaterThanOrEqual(6);
    for (const p of paths)
      expect(p).toMatch(/^POST (\/v1\/messages\?beta=true|\/v1beta\/models\/[\w-]+:streamGenerateContent\?alt=sse)$/);
  });
});
