import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startAgentCliFixture, type AgentCliFixture } from "../../../../test/support/agent-cli-fixture";
import type { MockScriptInput } from "../mock-model/mock-script";
import { runAgent } from "./agent-run";
import type { Harness } from "./harness";

/**
 * What a Claude Code run and a Gemini CLI run send: the real CLIs in a container of the agent image in
 * network mode none, whose only way out is the loopback bridge to the gateway's socket. The container
 * has no interface but loopback (the script's command lists them), so a telemetry, update or any other
 * host the CLI tried directly got nowhere; what went through the bridge the gateway saw — every
 * request, whatever its path, method or token, proxy requests and CONNECT tunnels included — and that
 * is exactly the CLI's model API requests, under the run's token, each forwarded.
 */
const SCRIPT: MockScriptInput = {
  usage: { inputTokens: 200, cachedInputTokens: 0, outputTokens: 20, reasoningTokens: 0 },
  steps: [
    { kind: "write-file", path: "NOTES.md", content: "Written through the gateway.\n" },
    { kind: "run", command: "ls /sys/class/net > interfaces.txt" },
    { kind: "reply", text: "Done." },
  ],
};

const CASES: { name: string; harness: Harness; path: string }[] = [
  {
    name: "Claude Code",
    harness: {
      kind: "claude-code",
      model: "claude-sonnet-4-5",
      instructions: "",
      thinkingBudget: null,
      reasoningEffort: null,
    },
    path: "/v1/messages?beta=true",
  },
  {
    name: "Gemini CLI",
    harness: { kind: "gemini-cli", model: "gemini-2.5-pro", instructions: "" },
    path: "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
  },
];

let fixture: AgentCliFixture;
beforeAll(async () => {
  fixture = await startAgentCliFixture({ "claude-sonnet-4-5": SCRIPT, "gemini-2.5-pro": SCRIPT });
}, 300_000);
afterAll(async () => {
  await fixture?.close();
});

describe.each(CASES)("$name in network mode none", ({ name, harness, path: modelPath }) => {
  it("sends the gateway nothing but its model API's requests", async () => {
    const run = fixture.input(harness, `egress-${name.replace(" ", "-").toLowerCase()}`);
    const seenBefore = fixture.seen.length;
    const mockBefore = fixture.mockHttp.length;
    const result = await runAgent(fixture.deps, run);
    expect(result.outcome, JSON.stringify(result.outcome)).toMatchObject({ status: "succeeded" });
    expect(fs.readFileSync(path.join(run.workspacePath, "NOTES.md"), "utf8")).toBe("Written through the gateway.\n");
    // no way out but loopback
    expect(fs.readFileSync(path.join(run.workspacePath, "interfaces.txt"), "utf8")).toBe("lo\n");

    const seen = fixture.seen.slice(seenBefore);
    // three model turns (write, run, reply), and nothing else: no count_tokens, model list, telemetry,
    // update check, feedback or proxy request, from this run or without a run token
    expect(seen).toEqual(
      Array.from({ length: 3 }, () => ({
        runId: run.runId,
        method: "POST",
        path: modelPath,
        api: harness.kind === "claude-code" ? "anthropic" : "gemini",
      })),
    );
    // each was forwarded to the model (the mock received exactly these)
    expect(fixture.mockHttp.slice(mockBefore).map((r) => `${r.method} ${r.url}`)).toEqual(
      seen.map((r) => `POST ${r.path}`),
    );
    expect(fixture.gateway.lastUpstreamError(run.runId)).toBeNull();
  }, 300_000);
});
