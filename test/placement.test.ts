import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { listWorkers, type WorkerInfo } from "../src/server/core/redis/worker-registry";
import { ACTIVE_TRIAL_STATES } from "../src/shared/vocabulary";
import type { RunningWorker } from "../worker/main";
import { startStackWorker, startStudyStack, type StudyStack } from "./support/study-stack";
import {
  addCalendarProject,
  calendarProject,
  connectRedis,
  createDockerRuntime,
  removeImages,
  tempDir,
  waitForStudy,
  type Redis,
} from "./support/study-harness";

/**
 * Issue 17, placement and capacity: workers advertise their room in their heartbeat, and a study's
 * concurrency is spread across workers with room. Three workers of this process on the real stack (real
 * Redis, Docker, Codex against the mock model): A and B with one slot each, and C whose free-disk floor
 * is above any disk, so it must take no job at all. A study of 4 trials at concurrency 2 must run one
 * trial on A and one on B at a time, never two on one worker, never more than 2 at once, none on C.
 */
const runtime = createDockerRuntime();
const HEARTBEAT = { intervalMs: 200, ttlMs: 3_000, stallLimitMs: 60_000 };
const ONE_STEP = {
  description: "Runs one command and replies.",
  usage: { inputTokens: 100, outputTokens: 10 },
  steps: [
    { kind: "run", command: "sleep 1 && echo ok" },
    { kind: "reply", text: "done" },
  ],
};
let server: PrivateRedis;
let stack: StudyStack;
let second: RunningWorker;
let heldBack: RunningWorker;
let redis: Redis;
let projectId: string;

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: tempDir("placement-redis") });
  stack = await startStudyStack({
    name: "placement",
    redisUrl: server.url,
    runtime,
    scripts: { "one-step": ONE_STEP },
    concurrency: 1,
    heartbeat: HEARTBEAT,
  });
  const common = { redisUrl: server.url, dataDir: stack.dataDir, mock: stack.mock, heartbeat: HEARTBEAT };
  second = await startStackWorker({ ...common, concurrency: 1 });
  heldBack = await startStackWorker({ ...common, concurrency: 1, floors: { diskFreeBytes: 2 ** 52 } });
  redis = connectRedis({ url: server.url, name: "placement-test" });
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  redis?.disconnect();
  await heldBack?.stop("test finished");
  await second?.stop("test finished");
  await stack?.close();
  await server?.stop();
  if (projectId) removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const byId = (workers: WorkerInfo[]) => new Map(workers.map((worker) => [worker.id, worker]));

describe("placement across workers", () => {
  it("advertises each worker's CPUs, memory, free disk, slots and running trials in its heartbeat", async () => {
    const workers = byId(await listWorkers(redis));
    for (const worker of [stack.worker, second, heldBack]) {
      const capacity = workers.get(worker.info.id)?.capacity;
      expect(capacity, worker.info.id).toMatchObject({ slots: 1, busySlots: 0, runningTrials: [] });
      expect(capacity?.cpus).toBeGreaterThan(0);
      expect(capacity?.memoryTotalBytes).toBeGreaterThan(capacity?.memoryAvailableBytes ?? Infinity);
      expect(capacity?.memoryAvailableBytes).toBeGreaterThan(0);
      expect(capacity?.diskFreeBytes).toBeGreaterThan(0);
    }
    expect(workers.get(stack.worker.info.id)?.capacity).toMatchObject({ accepting: true, pausedReason: null });
    expect(workers.get(heldBack.info.id)?.capacity).toMatchObject({ accepting: false });
    expect(workers.get(heldBack.info.id)?.capacity?.pausedReason).toMatch(
      /free disk of its data dir .* under the floor/,
    );

    // the System page and the health probe read them back through the same schema
    const listed = byId(await stack.web.services.system.workers());
    expect(listed.get(second.info.id)?.capacity?.diskFreeBytes).toBeGreaterThan(0);
    const health = await stack.web.services.system.health();
    expect(health.workers.online).toBe(3);
    expect(health.workers.list.find((room) => room.id === heldBack.info.id)).toMatchObject({
      slots: 1,
      busySlots: 0,
      accepting: false,
    });
    // two workers take jobs, so the one held back by its floor is no health problem
    expect(health.problems.join(" ")).not.toMatch(/No worker takes new jobs/);
  });

  it("runs a study of 4 trials at concurrency 2 one trial per single-slot worker at a time, none on the held-back one", async () => {
    const created = await stack.web.services.studies.create(
      {
        projectId,
        title: "Placement",
        taskPrompt: "Say ok.",
        testCommand: "node --test",
        concurrency: 2,
        configurations: [{ harness: "codex", model: "one-step", reasoningEffort: "low", repeats: 4 }],
      },
      "admin",
    );
    const samples: { perWorker: Map<string, number>; active: number; trials: Map<string, string[]> }[] = [];
    let done = false;
    const sampling = (async () => {
      while (!done) {
        const workers = await listWorkers(redis);
        const active = await stack.web.db.trial.count({
          where: { studyId: created.id, state: { in: [...ACTIVE_TRIAL_STATES] } },
        });
        samples.push({
          perWorker: new Map(workers.map((w) => [w.id, w.capacity?.busySlots ?? -1])),
          trials: new Map(workers.map((w) => [w.id, w.capacity?.runningTrials ?? []])),
          active,
        });
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    })();
    const study = await waitForStudy({
      web: stack.web,
      studyId: created.id,
      until: (s) => s.state === "done",
      timeoutMs: 240_000,
      what: "the study to finish",
    }).finally(() => (done = true));
    await sampling;

    expect(study.trials.map((trial) => trial.state)).toEqual(["succeeded", "succeeded", "succeeded", "succeeded"]);
    const rows = await stack.web.db.trial.findMany({ where: { studyId: created.id }, select: { workerId: true } });
    const ranOn = new Set(rows.map((row) => row.workerId));
    expect(ranOn).toEqual(new Set([stack.worker.info.id, second.info.id]));

    expect(samples.length).toBeGreaterThan(10);
    for (const sample of samples) {
      expect(sample.active).toBeLessThanOrEqual(2);
      expect(sample.perWorker.get(stack.worker.info.id)).toBeLessThanOrEqual(1);
      expect(sample.perWorker.get(second.info.id)).toBeLessThanOrEqual(1);
      expect(sample.perWorker.get(heldBack.info.id)).toBe(0);
    }
    // at some moment both single-slot workers ran a trial of the study, each its own
    const both = samples.find(
      (sample) =>
        sample.trials.get(stack.worker.info.id)?.length === 1 && sample.trials.get(second.info.id)?.length === 1,
    );
    expect(both, "a moment with a trial on each worker").toBeDefined();
    expect(both?.trials.get(stack.worker.info.id)).not.toEqual(both?.trials.get(second.info.id));
  });
});
