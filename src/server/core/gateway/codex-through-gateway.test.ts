import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCodexOnHost, type HostCodexRun } from "../../../../test/support/codex-host";
import { tempDir, REPO_ROOT } from "../../../../test/support/temp";
import { codexRunOutcome } from "../agents/codex-outcome";
import { startMockModel, type MockModelRequest, type MockModelServer } from "../mock-model/mock-model-server";
import { startModelGateway, type ModelGateway } from "./model-gateway";

/**
 * The real, pinned Codex binary on this host → model gateway (run token swapped for the key) → mock
 * model (which refuses anything but the key). Loopback only.
 */
const KEY = "sk-test-RECOGNISABLE-123";
const SHIPPED_SCRIPTS = path.join(REPO_ROOT, "mock-scripts");

describe("Codex through the model gateway to the mock model", () => {
  let mock: MockModelServer;
  let gateway: ModelGateway;
  const requests: MockModelRequest[] = [];
  const logs: string[] = [];
  const exceeded: string[] = [];
  const runs: HostCodexRun[] = [];
  const dirs: string[] = [];

  beforeAll(async () => {
    mock = await startMockModel({
      scriptsDir: SHIPPED_SCRIPTS,
      scripts: {
        budgeted: {
          usage: { inputTokens: 90, outputTokens: 10 },
          steps: [
            { kind: "run", command: "true" },
            { kind: "run", command: "true" },
            { kind: "reply", text: "never reached" },
          ],
        },
      },
      apiKey: KEY,
      onRequest: (request) => requests.push(request),
    });
    gateway = await startModelGateway({
      upstreamBaseUrl: mock.url,
      credential: () => ({ apiKey: KEY, source: "OPENAI_API_KEY" }),
      log: (line) => logs.push(line),
      onBudgetExceeded: ({ runId }) => exceeded.push(runId),
    });
  });
  afterAll(async () => {
    await gateway.close();
    await mock.close();
  });

  function sandbox(): { cwd: string; codexHome: string; home: string } {
    const dir = tempDir("codex-run");
    dirs.push(dir);
    return { cwd: path.join(dir, "workspace"), codexHome: path.join(dir, "codex-home"), home: path.join(dir, "home") };
  }

  async function codex(options: Parameters<typeof runCodexOnHost>[0]): Promise<HostCodexRun> {
    const run = await runCodexOnHost(options);
    runs.push(run);
    return run;
  }

  let first: { run: HostCodexRun; box: ReturnType<typeof sandbox> };

  it("runs a scripted turn that writes files in its working directory, metered exactly", async () => {
    const box = sandbox();
    const token = gateway.issueRunToken({ runId: "edit" });
    const run = await codex({ model: "edit-file", baseUrl: gateway.url, token, prompt: "Write the notes.", ...box });
    first = { run, box };
    expect(run.exitCode, run.stderr).toBe(0);
    expect(fs.readFileSync(path.join(box.cwd, "NOTES.md"), "utf8")).toBe(
      '# Notes\n\nWritten by the mock model: it\'s "quoted", $HOME stays literal, `backticks` too.\n',
    );
    expect(fs.readFileSync(path.join(box.cwd, "src/generated/answer.txt"), "utf8")).toBe("42\n");
    expect(codexRunOutcome({ state: run.state, exit: { exitCode: run.exitCode } })).toEqual({
      status: "succeeded",
      threadId: run.state.threadId,
      finalMessage: "I wrote NOTES.md and src/generated/answer.txt.",
    });
    expect(
      run.events.filter((e) => e.type === "command.finished").map((e) => e.type === "command.finished" && e.exitCode),
    ).toEqual([0, 0, 0]);
    expect(run.events.find((e) => e.type === "reasoning")).toMatchObject({ text: "I will create NOTES.md." });
    // Four model requests of 1000 input tokens each: the gateway's count is what Codex reports.
    expect(gateway.usage("edit")).toEqual({
      inputTokens: 4000,
      cachedInputTokens: 800,
      outputTokens: 200,
      reasoningTokens: 40,
    });
    expect(run.state.threadUsage).toEqual(gateway.usage("edit"));
    expect(run.state.runUsage).toEqual(gateway.usage("edit"));
    gateway.revoke("edit");
  });

  it("resumes the thread in a second run that sees the first turn", async () => {
    const token = gateway.issueRunToken({ runId: "resume" });
    const before = requests.length;
    const run = await codex({
      model: "edit-file",
      baseUrl: gateway.url,
      token,
      prompt: "Add a line.",
      ...first.box,
      resumeThreadId: first.run.state.threadId!,
      threadUsageBefore: first.run.state.threadUsage,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.state.threadId).toBe(first.run.state.threadId);
    const input = requests[before]!.body.input as {
      type?: string;
      role?: string;
      content?: { text?: string }[];
      output?: string;
    }[];
    const texts = input.flatMap((item) => (item.content ?? []).map((part) => part.text ?? ""));
    expect(texts).toContain("Write the notes.");
    expect(texts).toContain("I wrote NOTES.md and src/generated/answer.txt.");
    expect(texts.at(-1)).toBe("Add a line.");
    expect(input.filter((item) => item.type === "function_call_output")).toHaveLength(3);
    expect(requests[before]!.stepIndex).toBe(4);
    expect(fs.readFileSync(path.join(first.box.cwd, "NOTES.md"), "utf8")).toMatch(
      /backticks` too\.\nSecond turn was here\.\n$/,
    );
    // Codex reports the thread's total; this run's share is what the gateway metered for it.
    expect(run.state.threadUsage).toEqual({
      inputTokens: 6000,
      cachedInputTokens: 1200,
      outputTokens: 300,
      reasoningTokens: 60,
    });
    expect(run.state.runUsage).toEqual(gateway.usage("resume"));
    gateway.revoke("resume");
  });

  it("turns an HTTP 500 and a cut stream into clear failed outcomes", async () => {
    const token = gateway.issueRunToken({ runId: "http-500" });
    const failed = await codex({ model: "http-500", baseUrl: gateway.url, token, prompt: "Try.", ...sandbox() });
    expect(failed.exitCode).toBe(1);
    const outcome = codexRunOutcome({
      state: failed.state,
      exit: { exitCode: failed.exitCode, upstreamError: gateway.lastUpstreamError("http-500") },
    });
    expect(outcome.status).toBe("failed");
    expect(outcome.status === "failed" && outcome.reason).toMatch(
      /^The agent's turn failed: .+ \(model gateway: upstream answered HTTP 500: The mock model was scripted to answer HTTP 500\.\)$/,
    );

    const cutToken = gateway.issueRunToken({ runId: "cut" });
    const cut = await codex({
      model: "cut-stream",
      baseUrl: gateway.url,
      token: cutToken,
      prompt: "Try.",
      ...sandbox(),
    });
    expect(cut.exitCode).toBe(1);
    const cutOutcome = codexRunOutcome({
      state: cut.state,
      exit: { exitCode: cut.exitCode, upstreamError: gateway.lastUpstreamError("cut") },
    });
    expect(cutOutcome.status === "failed" && cutOutcome.reason).toMatch(
      /^The agent's turn failed: stream disconnected before completion.*\(model gateway: upstream answered the stream was cut before the response completed/,
    );
  });

  it("stops a run at its token budget: Codex's next request gets 429", async () => {
    const token = gateway.issueRunToken({ runId: "budgeted", budgetTokens: 150 });
    const run = await codex({ model: "budgeted", baseUrl: gateway.url, token, prompt: "Spend.", ...sandbox() });
    expect(exceeded).toEqual(["budgeted"]);
    expect(gateway.usage("budgeted")).toMatchObject({ inputTokens: 180, outputTokens: 20 });
    expect(run.exitCode).toBe(1);
    expect(run.state.turnFailure).toMatch(/429|budget/i);
    const outcome = codexRunOutcome({
      state: run.state,
      exit: { exitCode: run.exitCode, stoppedBecause: "The run reached its token budget of 150 tokens." },
    });
    expect(outcome).toEqual({
      status: "stopped",
      threadId: run.state.threadId,
      reason: "The run reached its token budget of 150 tokens.",
    });
  });

  it("never lets the real key reach Codex: not in its environment, CODEX_HOME, home, workspace, output or events", () => {
    expect(runs.length).toBeGreaterThanOrEqual(5);
    for (const run of runs) {
      expect(run.environ).toMatch(/(^|\0)GW_TOKEN=iwrun_/);
      expect(run.environ).not.toContain(KEY);
      expect(run.stdout + run.stderr).not.toContain(KEY);
      expect(JSON.stringify(run.events)).not.toContain(KEY);
    }
    const needle = Buffer.from(KEY);
    const walk = (dir: string): string[] =>
      fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const full = path.join(dir, entry.name);
        return entry.isDirectory() ? walk(full) : entry.isFile() ? [full] : [];
      });
    const files = dirs.flatMap(walk);
    expect(files.some((file) => file.includes(`${path.sep}codex-home${path.sep}sessions${path.sep}`))).toBe(true);
    for (const file of files) expect(fs.readFileSync(file).includes(needle), file).toBe(false);
    expect(logs.join("\n")).not.toContain(KEY);
  });
});
