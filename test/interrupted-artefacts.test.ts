import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { BIN, cleanEnv } from "./support/launch";
import {
  addCalendarProject,
  calendarProject,
  containersWithLabel,
  createDockerRuntime,
  FAKE_KEY,
  openStudyWeb,
  removeImages,
  scriptsDir,
  startMock,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";

/**
 * Issue 18, drill 4: an attempt's artefacts are on record from the moment they exist. A worker killed
 * with SIGKILL mid-agent leaves its trial interrupted and its workspace on disk; deleting the study
 * finds that workspace through the attempt's `trial.artefacts` event and removes it, and says nothing
 * is left. (Before, only `trial.finished` named the workspace, so it leaked while the deletion said
 * `leftovers: []`.)
 */
const runtime = createDockerRuntime();
const SLOW = {
  description: "Runs a command long enough to be killed.",
  steps: [
    { kind: "run", command: "sleep 45" },
    { kind: "reply", text: "done" },
  ],
};
let redis: PrivateRedis;
let dataDir: string;
let mock: Awaited<ReturnType<typeof startMock>>;
let web: StudyWeb;
let projectId: string;
let worker: ChildProcess | null = null;

beforeAll(async () => {
  redis = await startPrivateRedis({ dataDir: tempDir("artefacts-redis") }); // the shared Redis's databases are all taken
  dataDir = tempDir("artefacts-data");
  mock = await startMock(scriptsDir({ slow: SLOW }));
  web = await openStudyWeb({ dataDir, redisUrl: redis.url, runtime });
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  worker?.kill("SIGKILL");
  await web.close();
  await mock.close();
  await redis.stop();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

function startWorkerProcess(): ChildProcess {
  return spawn(
    process.execPath,
    [BIN, "worker", "--redis-url", redis.url, "--data-dir", dataDir, "--concurrency", "1"],
    { env: { ...cleanEnv(), OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: mock.url }, stdio: "ignore" },
  );
}

const slowStudy = (title: string) => ({
  projectId,
  title,
  taskPrompt: "Do the task.",
  testCommand: "node --test",
  configurations: [{ harness: "codex" as const, model: "slow", reasoningEffort: "low" as const, repeats: 1 }],
});

describe("an interrupted attempt's artefacts", () => {
  it("are recorded when created, so deleting the study removes its workspace and reports nothing left", async () => {
    worker = startWorkerProcess();
    const created = await web.services.studies.create(slowStudy("Killed"), "admin");
    const running = await waitForStudy({
      web,
      studyId: created.id,
      until: (s) => s.trials.some((t) => t.state === "agent" && t.commandsRun > 0),
      timeoutMs: 120_000,
      what: "the trial to run its command",
    });
    const trialId = running.trials[0]?.id ?? "";
    const workspaces = () => fs.readdirSync(dataDirPaths(dataDir).workspaces).filter((name) => name.startsWith("ws-"));
    const before = workspaces();
    expect(before.length).toBeGreaterThan(0);
    worker.kill("SIGKILL");
    const ended = await waitForStudy({
      web,
      studyId: created.id,
      until: (s) => s.state === "done",
      timeoutMs: 90_000,
      what: "the interruption",
    });
    expect(ended.trials[0]).toMatchObject({ state: "interrupted" });
    expect(containersWithLabel(`invariant.trial=${trialId}`)).toEqual([]);

    const deleted = await web.services.studies.remove(created.id, "admin");
    expect(deleted.leftovers).toEqual([]);
    expect(deleted.removed.workspaces).toBe(1);
    // the preflight's workspace is the study's too: none of this study's workspaces is left
    expect(workspaces()).toEqual([]);
  });

  it("a worker stopped with SIGTERM mid-trial removes the containers it started before it exits", async () => {
    const stopped = startWorkerProcess();
    worker = stopped;
    const created = await web.services.studies.create(slowStudy("Stopped"), "admin");
    const running = await waitForStudy({
      web,
      studyId: created.id,
      until: (s) => s.trials.some((t) => t.state === "agent" && t.commandsRun > 0),
      timeoutMs: 120_000,
      what: "the trial to run its command",
    });
    const trialId = running.trials[0]?.id ?? "";
    expect(containersWithLabel(`invariant.trial=${trialId}`)).toHaveLength(1);
    const exited = new Promise<number | null>((resolve) => stopped.once("exit", (code) => resolve(code)));
    stopped.kill("SIGTERM");
    // its own deadline is 20 s (then it exits 1); a clean stop exits 0
    expect(await exited).toBe(0);
    expect(containersWithLabel(`invariant.trial=${trialId}`)).toEqual([]);
    const ended = await waitForStudy({
      web,
      studyId: created.id,
      until: (s) => s.state === "done",
      timeoutMs: 90_000,
      what: "the trial's end",
    });
    // handed to recovery: interrupted with the reason, not "failed" because its container vanished
    expect(ended.trials[0]).toMatchObject({ state: "interrupted" });
    // naming the step it was in (the agent's), not a later one the stopping worker never reached
    expect(ended.trials[0]?.error).toMatch(
      /^Interrupted: (the worker running it \(.+\) stopped|this worker is stopping \(SIGTERM\)) while the agent was running\. /,
    );
  });
});
