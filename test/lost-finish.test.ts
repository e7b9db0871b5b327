import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EVENT_STREAM_KEY } from "../src/server/core/events/event-stream";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { startStudyStack, type StudyStack } from "./support/study-stack";
import {
  addCalendarProject,
  calendarProject,
  connectRedis,
  createDockerRuntime,
  openStudyWeb,
  removeImages,
  tempDir,
  waitForStudy,
} from "./support/study-harness";

/**
 * Issue 18, drill 5: finished work is never discarded. The web process is down while a trial finishes,
 * and the `trial.finished` entry is lost before it is recorded (as with a Redis outage or restart).
 * After the web process is back, its sweeper completes the trial from the worker's finish report on
 * disk: `succeeded` with its verdict — not left active forever, not interrupted.
 */
const runtime = createDockerRuntime();
let server: PrivateRedis;
let stack: StudyStack;
let projectId: string;

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: tempDir("lost-finish-redis") }); // the shared one's databases are taken
  stack = await startStudyStack({ name: "lost-finish", redisUrl: server.url, runtime, scripts: {}, concurrency: 1 });
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await stack.close();
  await server.stop();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

describe("a finish that was never recorded", () => {
  it("is completed from the worker's finish report after the web process comes back", async () => {
    const created = await stack.web.services.studies.create(
      {
        projectId,
        title: "Lost finish",
        taskPrompt: "Fix the calendar.",
        testCommand: "node --test",
        configurations: [{ harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 }],
      },
      "admin",
    );
    const running = await waitForStudy({
      web: stack.web,
      studyId: created.id,
      until: (s) => s.trials.some((t) => t.state === "agent"),
      timeoutMs: 120_000,
      what: "the agent to start",
    });
    const trialId = running.trials[0]?.id ?? "";
    await stack.web.close(); // the web process is down while the trial finishes
    const redis = connectRedis({ url: server.url, name: "lost-finish-test" });
    let finishedEntry: string | undefined;
    await expect
      .poll(
        async () => {
          const entries = (await redis.xrange(EVENT_STREAM_KEY, "-", "+")) as [string, string[]][];
          finishedEntry = entries.find(
            ([, fields]) => (fields[1] ?? "").includes('"trial.finished"') && (fields[1] ?? "").includes(trialId),
          )?.[0];
          return finishedEntry;
        },
        { timeout: 120_000, interval: 500 },
      )
      .toBeDefined();
    await redis.xdel(EVENT_STREAM_KEY, finishedEntry ?? ""); // lost before it was recorded
    redis.disconnect();

    stack.web = await openStudyWeb({ dataDir: stack.dataDir, redisUrl: server.url, runtime });
    const done = await waitForStudy({
      web: stack.web,
      studyId: created.id,
      until: (s) => s.state === "done",
      timeoutMs: 60_000,
      what: "the study after the restart",
    });
    expect(done.trials[0]).toMatchObject({ state: "succeeded", verdict: { passed: 23, total: 23 } });
  });
});
