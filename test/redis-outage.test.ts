import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { supervise, type Supervisor } from "../src/cli/supervisor";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { readFinishReport } from "../src/server/core/trial-records/finish-outbox";
import { DEFAULT_HEARTBEAT } from "../src/server/core/redis/worker-registry";
import type { StudyView } from "../src/shared/study-schemas";
import { signalProcess } from "./support/launch";
import { startStudyStack, type StudyStack } from "./support/study-stack";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  REPO_ROOT,
  removeImages,
  tempDir,
  waitForStudy,
} from "./support/study-harness";

/**
 * Issue 18, drill 1: kill -9 the private Redis mid-study, on the real stack (web side, worker, Docker,
 * Codex against the mock model). The launcher's supervisor (src/cli/supervisor.ts) restarts it from its
 * append-only file; here its restart waits for the test, so the outage lasts until a trial has finished.
 * While Redis is down (longer than a heartbeat lives): health is degraded, Stop completes (the study is
 * `stopping`, the queued trial cancelled), and a trial finishes. Once Redis is back: that trial is
 * `succeeded` with its verdict, the running one is stopped without a second Stop (not interrupted: the
 * sweeper waits for the worker to beat again), the study ends `stopped`, and no image is orphaned.
 */
const runtime = createDockerRuntime();
const fixAll = JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "mock-scripts", "calendar-fix-all.json"), "utf8")) as {
  steps: unknown[];
};
const SCRIPTS = {
  "slow-fix-all": {
    description: "The calendar fix, after a pause long enough for Redis to be killed first.",
    steps: [{ kind: "run", command: "sleep 8" }, ...fixAll.steps],
  },
  stubborn: {
    description: "Runs until it is stopped (Codex hands a command that runs on back after about 10 s).",
    steps: [
      ...Array.from({ length: 60 }, () => ({ kind: "run", command: "sleep 10" })),
      { kind: "reply", text: "done" },
    ],
  },
};
const redisDir = tempDir("outage-redis");
const lines: string[] = [];
let server: PrivateRedis;
let restarted: PrivateRedis | null = null;
let letRedisBack: () => void = () => undefined;
let supervisor: Supervisor;
let stack: StudyStack;
let projectId: string;

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: redisDir });
  const outageOver = new Promise<void>((resolve) => (letRedisBack = resolve));
  supervisor = supervise({
    name: "redis",
    label: "Redis",
    first: server,
    restartNote: "restarting from its append-only file",
    log: (line) => lines.push(line),
    start: async () => {
      await outageOver;
      restarted = await startPrivateRedis({ dataDir: redisDir, url: server.url });
      return restarted;
    },
  });
  stack = await startStudyStack({ name: "outage", redisUrl: server.url, runtime, scripts: SCRIPTS, concurrency: 2 });
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  letRedisBack();
  supervisor.release();
  await stack.close();
  await (restarted ?? server).stop();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const modelOf = (study: StudyView, choice: number) =>
  study.configurations.find((configuration) => configuration.choice === choice)?.model;

/** Full ids of the images labelled with the project (the test's project has only this study). */
function projectImages(): string[] {
  const listed = spawnSync(
    "docker",
    ["images", "-q", "--no-trunc", "--filter", `label=invariant.project=${projectId}`],
    { encoding: "utf8" },
  );
  return [...new Set(listed.stdout.split("\n").filter(Boolean))];
}

describe("kill -9 the private Redis mid-study", () => {
  it("Stop during the outage completes, a trial finished meanwhile keeps its verdict, no image is orphaned", async () => {
    const created = await stack.web.services.studies.create(
      {
        projectId,
        title: "Redis outage",
        taskPrompt: "Fix the calendar.",
        testCommand: "node --test",
        concurrency: 2,
        configurations: [
          { harness: "codex", model: "slow-fix-all", reasoningEffort: "low", repeats: 1 },
          { harness: "codex", model: "stubborn", reasoningEffort: "low", repeats: 2 },
        ],
      },
      "admin",
    );
    const running = await waitForStudy({
      web: stack.web,
      studyId: created.id,
      until: (s) => s.trials.filter((t) => t.state === "agent" && t.commandsRun > 0).length === 2,
      timeoutMs: 180_000,
      what: "two agents running their first command",
    });
    const quick = running.trials.find((t) => modelOf(running, t.choice) === "slow-fix-all");
    const stubborn = running.trials.find((t) => t.state === "agent" && modelOf(running, t.choice) === "stubborn");
    const waiting = running.trials.find((t) => t.state === "queued");
    if (!quick || !stubborn || !waiting) throw new Error(`unexpected trials: ${JSON.stringify(running.trials)}`);

    signalProcess(server.pid, "SIGKILL");
    const killedAt = Date.now();
    await expect
      .poll(() => lines.join("\n"), { timeout: 15_000 })
      .toContain("Redis exited (signal 9); restarting from its append-only file");
    const down = await stack.web.services.system.health();
    expect(down).toMatchObject({ status: "degraded", redis: { reachable: false } });

    // Stop completes during the outage: recorded in the database, the trial never queued cancelled at once
    const stopping = await stack.web.services.studies.stop(created.id, "admin");
    expect(stopping.state).toBe("stopping");
    expect(stopping.trials.find((t) => t.id === waiting.id)).toMatchObject({ state: "stopped" });

    // the quick trial finishes while Redis is still down: its finish report is on disk
    await expect
      .poll(() => readFinishReport({ dataDir: stack.dataDir, trialId: quick.id, attempt: quick.attempt }), {
        timeout: 180_000,
        interval: 500,
      })
      .not.toBeNull();
    expect((await stack.web.services.system.health()).redis.reachable).toBe(false);
    // down past the heartbeats' lifetime: the restarted Redis has no worker listed until the worker beats
    // again, and the sweeper must wait for that instead of interrupting the running trial
    await new Promise((resolve) =>
      setTimeout(resolve, Math.max(0, DEFAULT_HEARTBEAT.ttlMs + 1_000 - (Date.now() - killedAt))),
    );
    letRedisBack();
    const ended = await waitForStudy({
      web: stack.web,
      studyId: created.id,
      until: (s) => s.state === "stopped",
      timeoutMs: 120_000,
      what: "the study to end stopped once Redis is back",
    });
    expect(supervisor.status()).toMatchObject({ state: "running", restarts: 1, lastExit: "signal 9" });
    const byId = (id: string) => ended.trials.find((t) => t.id === id);
    expect(byId(quick.id)).toMatchObject({ state: "succeeded", verdict: { passed: 23, total: 23 } });
    expect(byId(stubborn.id)).toMatchObject({ state: "stopped", error: "Stopped by admin." });
    expect(byId(waiting.id)).toMatchObject({ state: "stopped", error: "Stopped by admin." });
    // every image the trials left is on record (deleting the study removes it)
    const recorded = ended.trials.flatMap((t) => (t.committedImageId ? [t.committedImageId] : []));
    expect(recorded.length).toBeGreaterThan(0);
    expect(projectImages().filter((id) => !recorded.includes(id))).toEqual([]);
    // the worker takes jobs again: a job round trip through the restarted Redis
    await expect(stack.web.services.system.selfcheck()).resolves.toBeDefined();
  });
});
