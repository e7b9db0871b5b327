import { spawn, type ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { EVENT_STREAM_KEY } from "../src/server/core/events/event-stream";
import { startWorker, type RunningWorker } from "../worker/main";
import { BIN, cleanEnv } from "./support/launch";
import {
  addCalendarProject,
  calendarProject,
  connectRedis,
  containersWithLabel,
  createDockerRuntime,
  FAKE_KEY,
  openStudyWeb,
  redisUrlFor,
  removeImages,
  scriptsDir,
  startMock,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";

/** Crashes: a worker killed with SIGKILL mid-trial, and a web process restarted mid-study. */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 9);
const runtime = createDockerRuntime();
const SLOW = {
  description: "Runs a command long enough to be killed.",
  steps: [
    { kind: "run", command: "sleep 45" },
    { kind: "reply", text: "done" },
  ],
};
const CHATTY = {
  description: "Several commands in a row, so events keep coming while the web process is down.",
  steps: [
    { kind: "run", command: "echo one; sleep 1" },
    { kind: "run", command: "echo two; sleep 1" },
    { kind: "run", command: "echo three; sleep 1" },
    { kind: "run", command: "echo four; sleep 1" },
    { kind: "reply", text: "done" },
  ],
};
let dataDir: string;
let mock: Awaited<ReturnType<typeof startMock>>;
let web: StudyWeb;
let projectId: string;

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "recovery-test" });
  await redis.flushdb();
  redis.disconnect();
  dataDir = tempDir("recovery-data");
  mock = await startMock(scriptsDir({ slow: SLOW, chatty: CHATTY }));
  web = await openStudyWeb({ dataDir, redisUrl: REDIS_URL, runtime });
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await web.close();
  await mock.close();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const study = (title: string, model: string) => ({
  projectId,
  title,
  taskPrompt: "Do the task.",
  testCommand: "node --test",
  configurations: [{ harness: "codex" as const, model, reasoningEffort: "low" as const, repeats: 1 }],
});

function workerProcess(): ChildProcess {
  const env = { ...cleanEnv(), OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: mock.url };
  return spawn(
    process.execPath,
    [BIN, "worker", "--redis-url", REDIS_URL, "--data-dir", dataDir, "--concurrency", "2"],
    { env, stdio: "ignore" },
  );
}

describe("recovery", () => {
  it("a worker killed with SIGKILL mid-trial: the trial ends interrupted and no container is left behind", async () => {
    const child = workerProcess();
    try {
      const created = await web.services.studies.create(study("Killed", "slow"), "admin");
      const running = await waitForStudy({
        web,
        studyId: created.id,
        until: (s) => s.trials.some((t) => t.state === "agent" && t.commandsRun > 0),
        timeoutMs: 90_000,
        what: "the trial to run its command",
      });
      const trialId = running.trials[0]?.id ?? "";
      expect(containersWithLabel(`invariant.trial=${trialId}`)).toHaveLength(1);
      child.kill("SIGKILL");
      // the worker's heartbeat expires within 15 s; the sweeper then ends the trial and removes its container
      const ended = await waitForStudy({
        web,
        studyId: created.id,
        until: (s) => s.state === "done",
        timeoutMs: 60_000,
        what: "the interruption",
      });
      expect(ended.trials[0]).toMatchObject({ state: "interrupted" });
      expect(ended.trials[0]?.error).toMatch(/stopped while the agent was running\. /);
      expect(containersWithLabel(`invariant.trial=${trialId}`)).toEqual([]);
    } finally {
      child.kill("SIGKILL");
    }
  });

  it("a web process restarted mid-study loses no event: every event the worker published is recorded", async () => {
    const worker: RunningWorker = await startWorker({
      redisUrl: REDIS_URL,
      dataDir,
      concurrency: 2,
      version: "test",
      modelGateway: { openaiApiKey: FAKE_KEY, codexHome: tempDir("host-codex"), upstreamBaseUrl: mock.url },
      log: () => undefined,
    });
    try {
      const created = await web.services.studies.create(study("Restart", "chatty"), "admin");
      await waitForStudy({
        web,
        studyId: created.id,
        until: (s) => s.trials.some((t) => t.state === "agent"),
        timeoutMs: 90_000,
        what: "the agent to start",
      });
      await web.close(); // the web process goes away while the trial keeps publishing
      await new Promise((resolve) => setTimeout(resolve, 3000));
      web = await openStudyWeb({ dataDir, redisUrl: REDIS_URL, runtime });
      const done = await waitForStudy({
        web,
        studyId: created.id,
        until: (s) => s.state === "done",
        timeoutMs: 90_000,
        what: "the study after the restart",
      });
      expect(done.trials[0]).toMatchObject({ state: "succeeded", commandsRun: 4 });
      const redis = connectRedis({ url: REDIS_URL, name: "stream-check" });
      const entries = (await redis.xrange(EVENT_STREAM_KEY, "-", "+")) as [string, string[]][];
      redis.disconnect();
      const published = entries.filter(([, fields]) => (fields[1] ?? "").includes(created.id)).map(([id]) => id);
      const recorded = new Set(
        (await web.db.eventLog.findMany({ where: { studyId: created.id }, select: { streamId: true } })).map(
          (row) => row.streamId,
        ),
      );
      expect(published.length).toBeGreaterThan(5);
      expect(published.filter((id) => !recorded.has(id))).toEqual([]);
    } finally {
      await worker.stop("test finished");
    }
  });
});
