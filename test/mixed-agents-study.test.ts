import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startMockModel, type MockModelServer } from "../src/server/core/mock-model/mock-model-server";
import type { MockModelRequest } from "../src/server/core/mock-model/mock-model-types";
import { readMockScript } from "../src/server/core/mock-model/mock-script";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import type { HarnessKind } from "../src/shared/vocabulary";
import { startWorker, type RunningWorker } from "../worker/main";
import {
  addCalendarProject,
  calendarProject,
  containersWithLabel,
  createDockerRuntime,
  openStudyWeb,
  redisUrlFor,
  REPO_ROOT,
  removeImages,
  scriptsDir,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";
import { connectRedis } from "../src/server/core/redis/connection";

/**
 * One study, three agents (issue 27): Codex, Claude Code and Gemini CLI — the real binaries in
 * containers, each through the model gateway to the mock model speaking that agent's API (Responses,
 * Anthropic Messages, Gemini) — on the same calendar snapshot, judged by the same captured test. Each
 * provider has its own real key, which only the mock (the provider) may see.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 30);
const KEYS = {
  responses: "sk-test-OPENAI-mixed-0001",
  anthropic: "sk-ant-test-ANTHROPIC-mixed-0002",
  gemini: "AIzaTEST-GOOGLE-mixed-0003",
} as const;
const HARNESSES: { kind: HarnessKind; api: keyof typeof KEYS }[] = [
  { kind: "codex", api: "responses" },
  { kind: "claude-code", api: "anthropic" },
  { kind: "gemini-cli", api: "gemini" },
];
const SCRIPTS = [
  { script: "calendar-fix-all", passed: 23 },
  { script: "calendar-fix-some", passed: 13 },
  { script: "calendar-fix-none", passed: 0 },
] as const;
const runtime = createDockerRuntime();
const requests: MockModelRequest[] = [];
let dataDir: string;
let scripts: string;
let mock: MockModelServer;
let web: StudyWeb;
let worker: RunningWorker;
let projectId: string;
let study: StudyView;

/** The key the request carried in its API's header (as a provider reads it). */
function keyOf(request: MockModelRequest): string | undefined {
  const header = (name: string) => [request.headers[name]].flat()[0];
  if (request.api === "anthropic") return header("x-api-key");
  if (request.api === "gemini") return header("x-goog-api-key");
  return header("authorization")?.replace(/^Bearer /, "");
}

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "mixed-agents-test" });
  await redis.flushdb();
  redis.disconnect();
  dataDir = tempDir("mixed-agents-data");
  scripts = scriptsDir();
  mock = await startMockModel({ scriptsDir: scripts, onRequest: (request) => requests.push(request) });
  web = await openStudyWeb({ dataDir, redisUrl: REDIS_URL, runtime });
  worker = await startWorker({
    redisUrl: REDIS_URL,
    dataDir,
    concurrency: 3,
    version: "test",
    modelGateway: {
      openaiApiKey: KEYS.responses,
      anthropicApiKey: KEYS.anthropic,
      googleApiKey: KEYS.gemini,
      codexHome: tempDir("mixed-host-codex"),
      upstreamBaseUrl: mock.url,
      anthropicBaseUrl: mock.rootUrl,
      googleBaseUrl: mock.rootUrl,
    },
    log: () => undefined,
  });
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await worker?.stop("test finished");
  await web?.close();
  await mock?.close();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const trialsOf = (kind: HarnessKind, script: string): TrialView[] => {
  const configuration = study.configurations.find((c) => c.harness === kind && c.model === script);
  return study.trials.filter((trial) => trial.configurationId === configuration?.id);
};

describe("a study of Codex, Claude Code and Gemini CLI on the calendar fixture", () => {
  it("ends each agent's fix-all, fix-some and fix-none at 23/23, 13/23 and 0/23", async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Three agents",
        taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        concurrency: 3,
        configurations: HARNESSES.flatMap(({ kind }) =>
          SCRIPTS.map(({ script }) => ({ harness: kind, model: script, reasoningEffort: "low" as const, repeats: 1 })),
        ),
      },
      "admin",
    );
    study = await waitForStudy({
      web,
      studyId: created.id,
      until: (view) => view.state === "done" || view.state === "stopped",
      timeoutMs: 400_000,
      what: "the three agents' study to finish",
    });
    expect(study.state).toBe("done");
    const verdicts = Object.fromEntries(
      HARNESSES.flatMap(({ kind }) =>
        SCRIPTS.map(({ script }) => [
          `${kind} ${script}`,
          trialsOf(kind, script).map((t) => `${t.outcome} ${t.verdict?.passed}/${t.verdict?.total}`),
        ]),
      ),
    );
    expect(verdicts).toEqual(
      Object.fromEntries(
        HARNESSES.flatMap(({ kind }) =>
          SCRIPTS.map(({ script, passed }) => [`${kind} ${script}`, [`completed ${passed}/23`]]),
        ),
      ),
    );
    expect(containersWithLabel(`invariant.study=${study.id}`)).toEqual([]);
  }, 420_000);

  it("meters every trial's tokens from its own API's usage, as scripted, and records the CLI's version", () => {
    for (const { kind } of HARNESSES)
      for (const { script } of SCRIPTS) {
        const parsed = readMockScript({ dir: scripts, name: script });
        const steps = parsed?.steps.length ?? 0;
        const [trial] = trialsOf(kind, script);
        expect(trial?.tokens, `${kind} ${script}`).toMatchObject({
          input: steps * (parsed?.usage?.inputTokens ?? 0),
          output: steps * (parsed?.usage?.outputTokens ?? 0),
        });
      }
    const versions = Object.fromEntries(
      HARNESSES.map(({ kind }) => [kind, trialsOf(kind, "calendar-fix-all")[0]?.manifest?.harnessVersion]),
    );
    const claude = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, "node_modules/@anthropic-ai/claude-code/package.json"), "utf8"),
    ) as { version: string };
    const gemini = JSON.parse(
      fs.readFileSync(path.join(REPO_ROOT, "node_modules/@google/gemini-cli/package.json"), "utf8"),
    ) as { version: string };
    expect(versions["claude-code"]).toContain(claude.version);
    expect(versions["gemini-cli"]).toContain(gemini.version);
    expect(versions.codex).toMatch(/\d+\.\d+\.\d+/);
  });

  it("shows each agent's transcript in the review: its commands, how they ended, and its final message", async () => {
    for (const { kind } of HARNESSES) {
      const [trial] = trialsOf(kind, "calendar-fix-all");
      const transcript = await web.services.review.transcript({ trialId: trial?.id ?? "" });
      const commands = transcript.items.filter((item) => item.kind === "command");
      const messages = transcript.items.filter((item) => item.kind === "message");
      expect(messages.length, kind).toBeGreaterThan(0);
      expect(commands.map((item) => item.command).join("\n"), kind).toContain("node --test");
      expect(commands.every((item) => item.status === "completed")).toBe(true);
      // Codex and Claude Code report each command's exit code; Gemini CLI's stream-json says only
      // success or error (docs/agents.md, "Known differences")
      const exitCodes = commands.map((item) => item.exitCode);
      if (kind === "gemini-cli") expect(exitCodes.every((code) => code === null)).toBe(true);
      else expect(exitCodes, kind).toContain(0);
    }
  });

  it("gave each provider its own real key and nothing else ever saw one", async () => {
    const byApi = new Map<string, Set<string | undefined>>();
    for (const request of requests) {
      const keys = byApi.get(request.api) ?? new Set();
      keys.add(keyOf(request));
      byApi.set(request.api, keys);
    }
    expect(Object.fromEntries([...byApi].map(([api, keys]) => [api, [...keys]]))).toEqual({
      responses: [KEYS.responses],
      anthropic: [KEYS.anthropic],
      gemini: [KEYS.gemini],
    });
    const reports = await Promise.all(
      (["md", "json", "csv"] as const).map(
        async (format) => (await web.services.studies.report({ studyId: study.id, format })).body,
      ),
    );
    const logs = await Promise.all(
      study.trials.map(
        async (trial) => (await web.services.studies.trialLog({ trialId: trial.id, tailBytes: 1 << 20 })).text,
      ),
    );
    const files = fs
      .readdirSync(dataDir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && fs.statSync(path.join(entry.parentPath, entry.name)).size < 64 * 1024 * 1024)
      .map((entry) => fs.readFileSync(path.join(entry.parentPath, entry.name)));
    // the trials' committed images (what "continue" starts from) carry their config and history, never a key
    const images = study.trials.flatMap((trial) => (trial.committedImageId ? [trial.committedImageId] : []));
    expect(images).toHaveLength(study.trials.length);
    const imageConfigs = images.map((image) =>
      execFileSync("docker", ["image", "inspect", image, "--format", "{{json .Config}}"], { encoding: "utf8" }),
    );
    for (const key of Object.values(KEYS)) {
      for (const text of [...reports, ...logs, ...imageConfigs]) expect(text).not.toContain(key);
      for (const file of files) expect(file.includes(key)).toBe(false);
    }
  });
});
