// Kill drills on the real launcher (its private Redis, its worker child, Docker): three `sleep 300`
// agents at a time, then kill -9 of the launcher, or of its worker child, and the time until none of the
// study's agent containers runs (docker ps, polled every 50 ms), and until the trials show `interrupted`.
// Baseline, measured in the same rounds: `docker rm -f` of three `sleep 300` containers started by hand,
// the floor for removing three running containers on this engine. Results: bench/results/kill-*.json,
// recorded in docs/benchmarks.md ("Owner death").
import { spawnSync } from "node:child_process";
import { docker, readyProject, removeDrillLeftovers, startLauncher, until } from "./drill-lib.mjs";
import { commandOf, childrenOf, median, writeResult } from "./lib.mjs";
import { calendarProject, round, tempDir } from "./study-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const SLEEPERS = 3;
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", INVARIANT_WORKER_CONCURRENCY: String(SLEEPERS) };
delete env.REDIS_URL;
delete env.DISPLAY;

const runningAgents = (studyId) =>
  docker(["ps", "-q", "--filter", `label=invariant.study=${studyId}`, "--filter", "label=invariant.role=agent"]);

const projectDir = calendarProject();

async function sleepers(api, projectId, title) {
  const { id } = await api.mutate("studies.create", {
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
    "the agents",
    () => Promise.resolve(runningAgents(id)),
    (ids) => ids.length === SLEEPERS,
    180_000,
  );
  return id;
}

/** ms from `since` until no agent container of the study runs. */
async function agentsGone(studyId, since) {
  await until(
    "no agent container",
    () => Promise.resolve(runningAgents(studyId)),
    (ids) => ids.length === 0,
    300_000,
    50,
  );
  return Date.now() - since;
}

async function interrupted(api, studyId, since) {
  await until(
    "the interruptions",
    () => api.query("studies.get", { studyId }),
    (s) => s.trials.every((t) => t.state === "interrupted"),
    120_000,
    100,
  );
  return Date.now() - since;
}

/** The floor: `docker rm -f` of three running `sleep 300` containers. */
function removalFloor() {
  const ids = Array.from({ length: SLEEPERS }, () =>
    spawnSync("docker", ["run", "-d", "--rm", "invariant-base:bookworm", "sleep", "300"], {
      encoding: "utf8",
    }).stdout.trim(),
  );
  const began = performance.now();
  spawnSync("docker", ["rm", "-f", ...ids], { stdio: "ignore" });
  return performance.now() - began;
}

const dataDir = tempDir("kill-drill");
let app = await startLauncher(dataDir, { env, detached: true });
const projectId = await readyProject(app.api, projectDir, "kill-drill");
const launcherKill = [];
const workerKill = { gone: [], interrupted: [] };
const floor = [];
try {
  for (let run = 0; run < RUNS; run++) {
    floor.push(removalFloor());
    // kill -9 of the worker child (the launcher starts another)
    const first = await sleepers(app.api, projectId, `worker kill ${run}`);
    const worker = childrenOf(app.child.pid).find((pid) => commandOf(pid).includes(" worker "));
    process.kill(worker, "SIGKILL");
    const workerKilledAt = Date.now();
    workerKill.gone.push(await agentsGone(first, workerKilledAt));
    workerKill.interrupted.push(await interrupted(app.api, first, workerKilledAt));
    // kill -9 of the launcher alone (its worker child and private Redis are left to notice)
    const second = await sleepers(app.api, projectId, `launcher kill ${run}`);
    process.kill(app.child.pid, "SIGKILL");
    const launcherKilledAt = Date.now();
    launcherKill.push(await agentsGone(second, launcherKilledAt));
    await until(
      "the launcher's end",
      () => Promise.resolve(app.child.exitCode ?? app.child.signalCode),
      Boolean,
      10_000,
    );
    app = await startLauncher(dataDir, { env, detached: true });
    await interrupted(app.api, second, Date.now());
  }
} finally {
  await app.stop();
  removeDrillLeftovers({ projectId, dataDir, projectDir });
}

const s = (ms) => round(ms / 1000, 1);
writeResult({
  name: "kill-launcher-no-agent",
  unit: "s",
  value: s(Math.max(...launcherKill)),
  baseline: s(median(floor)),
  notes: `worst of ${RUNS}: kill -9 of the launcher with ${SLEEPERS} \`sleep 300\` agents running → none of them running (each run: ${launcherKill.map(s).join(", ")} s); its worker child sees the launcher gone, gives its jobs the 5 s stop grace, and removes their containers. Baseline: docker rm -f of ${SLEEPERS} running containers (median).`,
});
writeResult({
  name: "kill-worker-no-agent",
  unit: "s",
  value: s(Math.max(...workerKill.gone)),
  baseline: s(median(floor)),
  notes: `worst of ${RUNS}: kill -9 of the worker child with ${SLEEPERS} agents running → none running (each run: ${workerKill.gone.map(s).join(", ")} s; its container warden removes them). Trials shown interrupted after ${workerKill.interrupted.map(s).join(", ")} s (the warden drops the heartbeat and publishes worker.offline, on which the dashboard sweeps at once). Baseline: docker rm -f of ${SLEEPERS} running containers (median).`,
});
