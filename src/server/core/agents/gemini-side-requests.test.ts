import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentCliFixture, type AgentCliFixture } from "../../../../test/support/agent-cli-fixture";
import type { MockScriptInput } from "../mock-model/mock-script";
import { runAgent } from "./agent-run";
import { GEMINI_SIDE_REQUEST_ALIASES } from "./harnesses/gemini-settings";

/**
 * Gemini CLI's side requests stay on the run's model: the real Gemini CLI in a container (network
 * none) through the real gateway. Without the harness's settings, Gemini CLI 0.61 names other models
 * (a gemini-3-pro-preview run's turns and its chat compression go to gemini-3.1-pro-preview-customtools,
 * another name's compression to gemini-3-pro-preview), which the gateway refuses, and the run fails.
 *
 * Chat compression is made to happen: four prompts of one conversation (resumed), the first with a
 * large command output (so the split point falls after it), the last reporting 600,000 prompt tokens
 * (past half the model's 1M context), so before its second turn Gemini CLI summarises the first prompt's
 * turns (a summary and a verification request: steps 3 and 4, replies) and carries on.
 */
const BIG_USAGE = { inputTokens: 600_000, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 };
const SCRIPT: MockScriptInput = {
  usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 },
  steps: [
    { kind: "run", command: `printf '%s\\n' ${"x".repeat(20_000)} > big.txt && cat big.txt` },
    { kind: "run", command: "echo second" },
    { kind: "reply", text: "First prompt done." },
    { kind: "reply", text: "<state_snapshot>big.txt written</state_snapshot>" },
    { kind: "reply", text: "<state_snapshot>big.txt written, checked</state_snapshot>" },
    { kind: "run", command: "echo fourth > done.txt", usage: BIG_USAGE },
    { kind: "reply", text: "All done." },
  ],
};
// a 3-series model, a 2.5 one (its compression alias names itself, but a partial pin of its resolution
// once sent it to gemini-3.8-flash), and a name Gemini CLI does not know (compression: gemini-3-pro-preview)
const MODELS = ["gemini-3-pro-preview", "gemini-2.5-flash", "cli-notes"] as const;

let fixture: AgentCliFixture;
beforeAll(async () => {
  fixture = await startAgentCliFixture(Object.fromEntries(MODELS.map((m) => [m, SCRIPT])));
}, 300_000);
afterAll(async () => {
  await fixture?.close();
});

describe.each(MODELS)("a Gemini CLI run of %s", (model) => {
  it("sends every request, side requests included, under the run's model, and none is refused", async () => {
    const first = fixture.input({ kind: "gemini-cli", model, instructions: "" }, `gemini-side-${model}`);
    const settings = () =>
      JSON.parse(fs.readFileSync(path.join(first.codexHomePath, ".gemini", "settings.json"), "utf8")) as {
        modelConfigs: { customOverrides: { match: { model: string }; modelConfig: { model: string } }[] };
      };
    const runs = [
      first,
      ...["Second.", "Third.", "Fourth."].map((prompt, i) => ({ ...first, prompt, runId: `${first.runId}-${i + 2}` })),
    ];
    let threadId: string | null = null;
    for (const run of runs) {
      const result = await runAgent(fixture.deps, { ...run, resumeThreadId: threadId });
      expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" });
      expect(fixture.gateway.lastUpstreamError(run.runId)).toBeNull();
      threadId = threadId ?? result.threadId;
      expect(result.threadId).toBe(threadId);
    }
    expect(fs.readFileSync(path.join(first.workspacePath, "done.txt"), "utf8")).toBe("fourth\n");
    // every alias is pointed at the run's model in the home the harness wrote
    expect(settings().modelConfigs.customOverrides.map((o) => [o.match.model, o.modelConfig.model])).toEqual(
      GEMINI_SIDE_REQUEST_ALIASES.map((alias) => [alias, model]),
    );

    const ids = new Set(runs.map((r) => r.runId));
    const mine = fixture.seen.filter((r) => r.runId !== null && ids.has(r.runId));
    const last = fixture.seen.filter((r) => r.runId === runs[3]!.runId);
    // the fourth prompt: its first turn, the compression summary and its verification, its second turn
    expect(last.map((r) => `${r.method} ${r.path}`)).toEqual([
      `POST /v1beta/models/${model}:streamGenerateContent?alt=sse`,
      `POST /v1beta/models/${model}:generateContent`,
      `POST /v1beta/models/${model}:generateContent`,
      `POST /v1beta/models/${model}:streamGenerateContent?alt=sse`,
    ]);
    for (const request of mine)
      expect(request.path).toMatch(new RegExp(`^/v1beta/models/${model.replaceAll(".", "\\.")}:`));
    // none refused: each one the gateway received reached the mock model, under the run's model
    const reached = fixture.reached.filter((r) => r.model === model);
    expect(reached).toHaveLength(mine.length);
    expect(fixture.reached.every((r) => MODELS.includes(r.model as (typeof MODELS)[number]))).toBe(true);
    // the summary request is Gemini CLI's compression (its own system prompt), answered by the script
    expect(JSON.stringify(reached.at(-3)?.body)).toContain("state_snapshot");
  }, 600_000);
});
