import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { startMockModel, type MockModelRequest, type MockModelServer } from "../mock-model/mock-model-server";
import { locateCodexBinary } from "./codex-binary";
import { codexArguments } from "./harness";

/**
 * A task prompt that starts with "-" is the prompt, never a Codex option: the real Codex binary runs
 * the exact argument list the harness builds (only the provider's address is pointed at a local mock
 * model) and the model must receive the task text.
 */
let mock: MockModelServer;
const seen: MockModelRequest[] = [];

beforeAll(async () => {
  mock = await startMockModel({
    scripts: { "dash-model": { steps: [{ kind: "reply", text: "done" }] } },
    onRequest: (request) => seen.push(request),
  });
});
afterAll(() => mock.close());

function runCodex(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const codex = locateCodexBinary();
  if (!codex) throw new Error("The pinned Codex binary is missing (npm install).");
  const home = tempDir("codex-dash");
  fs.mkdirSync(path.join(home, ".codex"));
  const child = spawn(codex.path, args, {
    cwd: home,
    // only these variables (Next's global types would require NODE_ENV; Codex does not need it)
    env: {
      PATH: "/usr/bin:/bin",
      HOME: home,
      CODEX_HOME: path.join(home, ".codex"),
      GW_TOKEN: "t",
      LANG: "C.UTF-8",
    } as Record<string, string> as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString("utf8")));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString("utf8")));
  const timer = setTimeout(() => child.kill("SIGKILL"), 60_000);
  return new Promise((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
}

describe("a task prompt starting with -", () => {
  for (const prompt of ["--version", "-h please fix the tests", "--help"]) {
    it(`reaches the model as the prompt: ${JSON.stringify(prompt)}`, async () => {
      const provider = `model_providers.gw={ name="invariant-gateway", base_url="${mock.url}", env_key="GW_TOKEN", wire_api="responses", request_max_retries=0, stream_max_retries=0 }`;
      const [command, ...args] = codexArguments({
        harness: {
          kind: "codex",
          model: "dash-model",
          reasoningEffort: "low",
          instructions: "",
          overrides: [provider],
        },
        prompt,
      });
      expect(command).toBe("codex");
      const before = seen.length;
      const run = await runCodex(args);
      expect(run.stderr + run.stdout).not.toMatch(/^Usage:/m);
      expect(run.code).toBe(0);
      expect(run.stdout).toContain('"type":"turn.completed"');
      const request = seen.slice(before)[0];
      expect(JSON.stringify(request?.body.input)).toContain(JSON.stringify(prompt).slice(1, -1));
    });
  }
});
