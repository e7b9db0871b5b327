import { spawnSync } from "node:child_process";
import fs from "node:fs";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import type { StudyView } from "../src/shared/study-schemas";
import { isAlive, launch, signalProcess, type Launched } from "./support/launch";
import { calendarProject } from "./support/study-harness";
import { tempDir } from "./support/temp";

/**
 * Issue 24, cases 2, 6 and 8 on the real launcher (its private Redis, its worker child, Docker): three
 * `sleep 300` agents at a time, and what becomes of them when their owner goes.
 * - 8: kill -9 of the worker child. Its containers are removed and its trials interrupted without waiting
 *   for its heartbeat to expire: the test stretches the dead worker's heartbeat to 10 minutes right after
 *   the kill, which on the code of before kept the trials at `agent` and the containers running (the
 *   sweeper and the next worker's reconciler both took the worker for alive).
 * - 6: SIGTERM of the launcher while the agents run. Every message names the step, in plain words ("while
 *   the agent was running"), the log has no commit error and no "Trial error", and the study says its
 *   trials were interrupted instead of `done`.
 * - 2: kill -9 of the launcher alone. Its agents stop within seconds (they ran for their whole 300 s
 *   before: the worker child gave up on its stop with Redis gone and left them), and the launcher started
 *   again shows the trials interrupted while the agent was running.
 * The seconds from each kill to no agent container are printed (bench/kill-drill.bench.mjs records them in
 * docs/benchmarks.md), not asserted.
 */
const SLEEPERS = 3;
let app: Launched;
let dataDir: string;
let projectId: string;

async function start(): Promise<Launched> {
  return launch({ dataDir, detached: true, env: { INVARIANT_WORKER_CONCURRENCY: String(SLEEPERS) } });
}

beforeAll(async () => {
  dataDir = tempDir("owner-death");
  app = await start();
  projectId = await readyProject();
}, 400_000);

afterAll(async () => {
  await app?.stop("SIGTERM");
  for (const id of dockerIds(["ps", "-aq", "--filter", `label=invariant.project=${projectId}`]))
    spawnSync("docker", ["rm", "-f", id], { stdio: "ignore" });
  const images = dockerIds(["images", "-q", "--filter", `label=invariant.project=${projectId}`]);
  if (images.length > 0) spawnSync("docker", ["rmi", "-f", ...new Set(images)], { stdio: "ignore" });
}, 120_000);

async function call<T>(procedure: string, input?: unknown, method: "GET" | "POST" = "GET"): Promise<T> {
  const query = method === "GET" && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
  const response = await fetch(`${app.base}/api/trpc/${procedure}${query}`, {
    method,
    headers: { authorization: `Bearer ${app.token}`, "content-type": "application/json" },
    ...(method === "POST" ? { body: JSON.stringify(input ?? {}) } : {}),
  });
  const json = (await response.json()) as { result?: { data: T }; error?: { message: string } };
  if (!response.ok || !json.result) throw new Error(`${procedure}: ${response.status} ${json.error?.message ?? ""}`);
  return json.result.data;
}
const mutate = <T>(procedure: string, input: unknown) => call<T>(procedure, input, "POST");

async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(value).slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const dockerIds = (args: string[]) =>
  spawnSync("docker", args, { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
/** The study's agent containers still running. */
const runningAgents = (studyId: string) =>
  dockerIds(["ps", "-q", "--filter", `label=invariant.study=${studyId}`, "--filter", "label=invariant.role=agent"]);
const study = (studyId: string) => call<StudyView>("studies.get", { studyId });
const workerPid = () =>
  app.childPids().find((pid) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("worker");
    } catch {
      return false;
    }
  });

async function readyProject(): Promise<string> {
  const project = await mutate<{ id: string }>("projects.add", { hostPath: calendarProject(), name: "owner-death" });
  await mutate("environments.prepare", { projectId: project.id });
  await until(
    "the environment",
    () => call<{ versions: { status: string }[] }>("environments.overview", { projectId: project.id }),
    (overview) => overview.versions.some((version) => version.status !== "building"),
    300_000,
  ).then((overview) => expect(overview.versions.map((version) => version.status)).toEqual(["ready"]));
  return project.id;
}

/** A study of SLEEPERS `sleep 300` agents at once, resolved once all of them run in their containers. */
async function sleepers(title: string): Promise<string> {
  const created = await mutate<{ id: string }>("studies.create", {
    projectId,
    title,
    taskPrompt: "Sleep.",
    testCommand: "node --test",
    concurrency: SLEEPERS,
    configurations: [
      { harness: "command", model: "", reasoningEffort: "low", command: "sleep 300", repeats: SLEEPERS },
    ],
  });
  await until(
    "every agent running",
    () => study(created.id),
    (s) => s.trials.filter((t) => t.state === "agent").length === SLEEPERS,
    180_000,
  );
  await until(
    "their containers",
    () => Promise.resolve(runningAgents(created.id)),
    (ids) => ids.length === SLEEPERS,
    60_000,
  );
  return created.id;
}

/** Polls, with a deadline far below the agents' 300 s, until none of the study's agent containers runs; returns the ms. */
async function agentsGone(studyId: string, since: number): Promise<number> {
  await until(
    "no agent container",
    () => Promise.resolve(runningAgents(studyId)),
    (ids) => ids.length === 0,
    120_000,
  );
  return Date.now() - since;
}

/** The study once over, with every trial interrupted while its agent ran, and the study saying so. */
async function expectInterruptedWhileAgentRan(studyId: string): Promise<StudyView> {
  const ended = await until(
    "the study's end",
    () => study(studyId),
    (s) => s.state === "done",
    120_000,
  );
  for (const trial of ended.trials) {
    expect(trial.state).toBe("interrupted");
    // in the sweeper's words, or in the stopping worker's (its job's failure reached Redis first)
    expect(trial.error).toMatch(
      /^Interrupted: (the worker running it \(.+\) stopped|this worker is stopping \(.+\)) while the agent was running\. /,
    );
  }
  expect(ended.shownState).toBe("interrupted");
  expect(ended.counts.interrupted).toBe(SLEEPERS);
  return ended;
}

async function trialLog(trialId: string): Promise<string> {
  return (await call<{ text: string }>("studies.trialLog", { trialId, tailBytes: 1 << 20 })).text;
}

describe("a container is bounded by its owner's life", () => {
  it("kill -9 of the worker: its agents are removed and its trials interrupted without waiting for its heartbeat", async () => {
    const studyId = await sleepers("Worker killed");
    const pid = workerPid();
    const workers = await call<{ id: string; pid: number }[]>("system.workers");
    const workerId = workers.find((worker) => worker.pid === pid)?.id;
    expect(workerId).toBeTruthy();
    const redis = new Redis({ path: dataDirPaths(dataDir).redis.socket, maxRetriesPerRequest: 1 });
    try {
      signalProcess(pid, "SIGKILL");
      const killedAt = Date.now();
      // as if its heartbeat had just been written with a long life: only the worker's death may end its trials
      await redis.pexpire(`invariant:worker:${workerId}`, 600_000);
      const goneMs = await agentsGone(studyId, killedAt);
      await expectInterruptedWhileAgentRan(studyId);
      console.log(
        `owner death: kill -9 of the worker → no agent container after ${goneMs} ms, trials interrupted after ${Date.now() - killedAt} ms`,
      );
      expect(isAlive(pid ?? -1)).toBe(false);
    } finally {
      redis.disconnect();
    }
  }, 400_000);

  it("SIGTERM of the launcher while agents run: the messages name the agent step, and the study says interrupted", async () => {
    const studyId = await sleepers("Launcher stopped");
    expect(await app.stop("SIGTERM")).toBe(0);
    expect(runningAgents(studyId)).toEqual([]);
    app = await start();
    const ended = await expectInterruptedWhileAgentRan(studyId);
    for (const trial of ended.trials) {
      const log = await trialLog(trial.id);
      expect(log).not.toMatch(/cannot commit|Could not keep the agent's container|Trial error|Agent failed/);
      expect(log).not.toMatch(/Recording the diff|Running the test command/);
      expect(log.trimEnd()).toMatch(
        /Interrupted: this worker is stopping \(SIGTERM\) while the agent was running\. Its containers were removed; retry it to run it again\.$/,
      );
    }
  }, 400_000);

  it("kill -9 of the launcher: its agents stop within seconds, and the launcher started again shows them interrupted", async () => {
    const studyId = await sleepers("Launcher killed");
    const pid = app.child.pid;
    signalProcess(pid, "SIGKILL");
    const killedAt = Date.now();
    const goneMs = await agentsGone(studyId, killedAt);
    console.log(`owner death: kill -9 of the launcher → no agent container after ${goneMs} ms`);
    await app.exited;
    app = await start();
    await expectInterruptedWhileAgentRan(studyId);
  }, 400_000);
});
