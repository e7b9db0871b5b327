import { spawn } from "node:child_process";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { startMockModel, type MockModelRequest, type MockModelServer } from "../mock-model/mock-model-server";
import { locateClaudeCode, locateGeminiCli } from "./agent-packages";
import { claudeCodeArguments, claudeCodeHarness, CLAUDE_BINARY } from "./harnesses/claude-code";
import { GEMINI_ENTRY, GEMINI_NODE, geminiCliArguments, geminiCliHarness } from "./harnesses/gemini-cli";
import { CONTAINER_PATHS } from "./harnesses/harness-module";

/**
 * A task that starts with "-" is the prompt, never an option, for Claude Code and Gemini CLI as for
 * Codex (codex-prompt-flag.test.ts): the real CLIs run the exact argument list and environment their
 * harness modules build (the container paths swapped for the package's, the gateway for the mock model).
 */
let mock: MockModelServer;
const seen: MockModelRequest[] = [];
const claude = locateClaudeCode();
const gemini = locateGeminiCli();

beforeAll(async () => {
  mock = await startMockModel({
    scripts: { "dash-model": { steps: [{ kind: "reply", text: "done" }] } },
    onRequest: (request) => seen.push(request),
  });
});
afterAll(() => mock.close());

function run(
  command: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const [file, ...args] = command;
  const child = spawn(file ?? "", args, {
    cwd: tempDir("dash-workspace"),
    env: { PATH: "/usr/bin:/bin", LANG: "C.UTF-8", ...env } as Record<string, string> as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), 90_000);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

/** The module's environment for this host: its agent home a temp folder, the gateway the mock model. */
function hostEnv(env: Record<string, string>, home: string): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).map(([name, value]) => [
      name,
      value === CONTAINER_PATHS.agentHome ? home : value.startsWith("http://127.0.0.1:") ? mock.rootUrl : value,
    ]),
  );
}

const PROMPTS = ["--version", "-h please fix the tests", "--help"];

describe("a task starting with - reaches Claude Code's model as the prompt", () => {
  for (const prompt of PROMPTS) {
    it(JSON.stringify(prompt), async () => {
      if (!claude) throw new Error("The pinned Claude Code binary is missing (npm install).");
      const harness = claudeCodeHarnessInput();
      const args = claudeCodeArguments({ harness, prompt });
      expect(args[0]).toBe(CLAUDE_BINARY);
      const home = tempDir("claude-dash-home");
      const env = hostEnv(
        claudeCodeHarness.env({ harness, prompt, resumeThreadId: null, hostedTools: false, token: "t" }),
        home,
      );
      const before = seen.length;
      const result = await run([claude.binary, ...args.slice(1)], env);
      expect(result.stdout).not.toMatch(/^Usage:/m);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('"type":"result"');
      const request = seen.slice(before).find((r) => r.api === "anthropic");
      expect(JSON.stringify(request?.body)).toContain(JSON.stringify(prompt).slice(1, -1));
    });
  }
});

describe("a task starting with - reaches Gemini CLI's model as the prompt", () => {
  for (const prompt of PROMPTS) {
    it(JSON.stringify(prompt), async () => {
      if (!gemini) throw new Error("The pinned Gemini CLI or its Node.js is missing (npm install).");
      const harness = { kind: "gemini-cli" as const, model: "dash-model", instructions: "" };
      const args = geminiCliArguments({ harness, prompt });
      expect(args.slice(0, 2)).toEqual([GEMINI_NODE, GEMINI_ENTRY]);
      const home = tempDir("gemini-dash-home");
      geminiCliHarness.prepareHome?.(home, harness);
      const env = hostEnv(
        geminiCliHarness.env({ harness, prompt, resumeThreadId: null, hostedTools: false, token: "t" }),
        home,
      );
      const before = seen.length;
      const result = await run([gemini.node, path.join(gemini.bundleDir, "gemini.js"), ...args.slice(2)], env);
      expect(result.stdout).not.toMatch(/^Usage:/m);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('"type":"result"');
      const request = seen.slice(before).find((r) => r.api === "gemini");
      expect(JSON.stringify(request?.body)).toContain(JSON.stringify(prompt).slice(1, -1));
    });
  }
});

function claudeCodeHarnessInput() {
  return {
    kind: "claude-code" as const,
    model: "dash-model",
    instructions: "",
    thinkingBudget: null,
    reasoningEffort: null,
  };
}
