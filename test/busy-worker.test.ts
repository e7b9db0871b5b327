import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { listWorkers } from "../src/server/core/redis/worker-registry";
import { startStudyStack, type StudyStack } from "./support/study-stack";
import {
  addCalendarProject,
  calendarProject,
  connectRedis,
  createDockerRuntime,
  REPO_ROOT,
  removeImages,
  tempDir,
  waitForStudy,
} from "./support/study-harness";

/**
 * Issue 18: a worker whose event loop is blocked (a huge file hashed synchronously, say) for longer than
 * its heartbeat's lifetime is busy, not dead. Its heartbeat comes from a thread of its own
 * (worker/heartbeat.ts), so the sweeper does not interrupt its trial, which finishes `succeeded`.
 * The heartbeat's timing is shortened (1.5 s lifetime) and the loop blocked for 6 s; the worker runs in
 * this process, so blocking this process's event loop blocks the worker's.
 */
const runtime = createDockerRuntime();
const HEARTBEAT = { intervalMs: 300, ttlMs: 1_500, stallLimitMs: 60_000 };
const BLOCK_MS = 6_000;
const fixAll = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "mock-scripts", "calendar-fix-all.json"), "utf8")) as {
  steps: unknown[];
};
let server: PrivateRedis;
let stack: StudyStack;
let projectId: string;

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: tempDir("busy-worker-redis") });
  const scripts = {
    "pausing-fix-all": {
      description: "The calendar fix, after a pause during which the test blocks the worker.",
      steps: [{ kind: "run", command: "sleep 4" }, ...fixAll.steps],
    },
  };
  stack = await startStudyStack({
    name: "busy-worker",
    redisUrl: server.url,
    runtime,
    scripts,
    concurrency: 1,
    heartbeat: HEARTBEAT,
  });
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await stack.close();
  await server.stop();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

/** Blocks this thread (and so the worker's and the web side's event loop) without yielding. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("a worker whose event loop is blocked past its heartbeat's lifetime", () => {
  it("keeps its heartbeat, and its trial is not interrupted: it finishes succeeded", async () => {
    const redis = connectRedis({ url: server.url, name: "busy-worker-test" });
    try {
      const created = await stack.web.services.studies.create(
        {
          projectId,
          title: "Busy worker",
          taskPrompt: "Fix the calendar.",
          testCommand: "node --test",
          configurations: [{ harness: "codex", model: "pausing-fix-all", reasoningEffort: "low", repeats: 1 }],
        },
        "admin",
      );
      await waitForStudy({
        web: stack.web,
        studyId: created.id,
        until: (s) => s.trials.some((t) => t.state === "agent" && t.commandsRun > 0),
        timeoutMs: 120_000,
        what: "the agent to run its first command",
      });
      blockEventLoop(BLOCK_MS);
      // asked before any timer of this process runs again: only the heartbeat thread beat meanwhile
      const workers = await listWorkers(redis);
      expect(workers.map((worker) => worker.id)).toEqual([stack.worker.info.id]);

      const done = await waitForStudy({
        web: stack.web,
        studyId: created.id,
        until: (s) => s.state === "done",
        timeoutMs: 120_000,
        what: "the study to finish",
      });
      expect(done.trials[0]).toMatchObject({ state: "succeeded", verdict: { passed: 23, total: 23 } });
    } finally {
      redis.disconnect();
    }
  });
});
