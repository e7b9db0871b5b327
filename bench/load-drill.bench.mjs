// Health and pages under a 40-trial load (issue 24): the real launcher (private Redis, worker child at
// concurrency 8, Docker), a study of 40 command trials at study concurrency 8, and, every 250 ms while it
// runs, three probes: GET /api/health, GET of the study's page (HTML) and the page's data (tRPC
// studies.get). Baseline, measured in the same run: the same probes for BENCH_IDLE_S seconds with the
// dashboard idle (environment ready, nothing running). Figures: p50/p99/max per probe, and how many
// health answers were not 200 (an outage reported while nothing was down). Results:
// bench/results/load-*.json, recorded in docs/benchmarks.md ("Under load").
import os from "node:os";
import { readyProject, removeDrillLeftovers, sleep, startLauncher, until } from "./drill-lib.mjs";
import { writeResult } from "./lib.mjs";
import { calendarProject, percentile, round, tempDir } from "./study-lib.mjs";

const TRIALS = Number(process.env.BENCH_TRIALS ?? 40);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 20);
const PROBE_MS = 250;
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1", INVARIANT_WORKER_CONCURRENCY: String(CONCURRENCY) };
delete env.REDIS_URL;
delete env.DISPLAY;

/** One round of the three probes; each records its ms and status. */
async function probe(app, studyId, samples) {
  const headers = { authorization: `Bearer ${app.token}` };
  const timed = async (key, request) => {
    const began = performance.now();
    try {
      const response = await request();
      await response.arrayBuffer();
      samples[key].push({ ms: performance.now() - began, status: response.status });
    } catch (error) {
      samples[key].push({ ms: performance.now() - began, status: `error ${String(error)}` });
    }
  };
  const input = encodeURIComponent(JSON.stringify({ studyId }));
  await Promise.all([
    timed("health", () => fetch(`${app.origin}/api/health`)),
    timed("page", () => fetch(`${app.origin}/studies/${studyId}`, { headers })),
    timed("data", () => fetch(`${app.origin}/api/trpc/studies.get?input=${input}`, { headers })),
  ]);
}

async function probeWhile(app, studyId, keepGoing) {
  const samples = { health: [], page: [], data: [] };
  while (await keepGoing()) {
    const began = Date.now();
    await probe(app, studyId, samples);
    await sleep(Math.max(0, PROBE_MS - (Date.now() - began)));
  }
  return samples;
}

const stats = (list) => {
  const ms = list.map((sample) => sample.ms);
  return { n: ms.length, p50: round(percentile(ms, 50)), p99: round(percentile(ms, 99)), max: round(Math.max(...ms)) };
};
const not200 = (list) => list.filter((sample) => sample.status !== 200);

const projectDir = calendarProject();
const dataDir = tempDir("load-drill");
const app = await startLauncher(dataDir, { env });
let projectId = null;
try {
  projectId = await readyProject(app.api, projectDir, "load-drill");
  // a first, one-trial study: the page to probe while idle, and warm caches for both phases
  const create = (title, repeats, concurrency) =>
    app.api.mutate("studies.create", {
      projectId,
      title,
      taskPrompt: "Work a little, then stop.",
      testCommand: "node --test",
      concurrency,
      // at most 20 repeats a configuration: the trials split over configurations that differ only in their echo
      configurations: Array.from({ length: Math.ceil(repeats / 20) }, (_, index) => ({
        harness: "command",
        model: "",
        reasoningEffort: "low",
        command: `sleep 3; echo done ${index + 1}`,
        repeats: Math.min(20, repeats - index * 20),
      })),
    });
  const finished = (studyId) => async () => {
    const study = await app.api.query("studies.get", { studyId });
    return !["preflight", "running", "stopping"].includes(study.state);
  };
  const warm = await create("warm-up", 1, 1);
  await until("the warm-up study", finished(warm.id), Boolean, 600_000);
  const idleUntil = Date.now() + IDLE_S * 1000;
  const idle = await probeWhile(app, warm.id, async () => Date.now() < idleUntil);
  const loadStarted = Date.now();
  const load = await create(`${TRIALS} trials`, TRIALS, CONCURRENCY);
  const stillRunning = finished(load.id);
  const busy = await probeWhile(app, load.id, async () => !(await stillRunning()));
  const loadSeconds = round((Date.now() - loadStarted) / 1000, 1);
  const study = await app.api.query("studies.get", { studyId: load.id });
  const ended = study.trials.filter((trial) => trial.state === "succeeded").length;
  const notes = (key) =>
    `${TRIALS} command trials (sleep 3 + the 23 calendar checks) at study and worker concurrency ${CONCURRENCY} on the real launcher, ${ended}/${TRIALS} succeeded in ${loadSeconds} s; probed every ${PROBE_MS} ms: ${JSON.stringify(stats(busy[key]))} under load vs ${JSON.stringify(stats(idle[key]))} idle (baseline, ${IDLE_S} s, same run); answers not 200 under load: ${not200(busy[key]).length} of ${busy[key].length} (${[...new Set(not200(busy[key]).map((sample) => sample.status))].join(", ") || "none"}), idle: ${not200(idle[key]).length}; load average at the end ${os.loadavg()[0].toFixed(1)}.`;
  for (const [key, name] of [
    ["health", "load-health-p99"],
    ["page", "load-study-page-p99"],
    ["data", "load-study-data-p99"],
  ])
    writeResult({ name, unit: "ms", value: stats(busy[key]).p99, baseline: stats(idle[key]).p99, notes: notes(key) });
} finally {
  await app.stop();
  removeDrillLeftovers({ projectId, dataDir, projectDir });
}
