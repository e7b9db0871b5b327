// Big studies (issue 17, point 4): memory of the web process and frame time of the study page while 200
// trials are live, against the real product in Debian Chromium. `invariant-web --no-worker` runs on the
// bench's own Redis; a standalone `invariant-web worker` (the machine's default concurrency) runs a
// real study of BENCH_REAL_TRIALS one-step trials (real Codex, real Docker, the mock model) — its wall
// time per trial says how long 200 real ones would take. Then the worker is stopped, a running copy of
// that study with 200 trials (10 configurations × 20 repeats) is seeded, and the recorded events of the
// real trials are published again for the 200 (cycled, each trial at its recorded pace, starts spread
// over BENCH_STAGGER_MS so all 200 are live at once) under a heartbeat of a stand-in worker: the web
// process records, applies and fans them out exactly as a worker's; only their source is a replay.
// Sampled in the same run: the web process's RSS idle (the dashboard open) and through both studies;
// rAF intervals in a blank page (the floor), on the real study's page and on the 200-trial page during
// the replay; then the reports (Markdown/JSON/CSV) of the 200-trial study against the small one's.
import os from "node:os";
import path from "node:path";
import { launchApp, launchChromium } from "./browser-lib.mjs";
import { median, ROOT, startProcess, writeResult } from "./lib.mjs";
import {
  frameStats,
  recordedTrials,
  removeDirs,
  replay,
  rssStats,
  sampleRss,
  seedRunningCopy,
  startFrames,
  stopFrames,
  trpcClient,
} from "./big-study-lib.mjs";
import {
  calendarProject,
  FAKE_KEY,
  ONE_STEP,
  productModules,
  round,
  run,
  scriptsDir,
  startRedis,
  TASK_PROMPT,
  TEST_COMMAND,
  TEST_FILE,
  tempDir,
} from "./study-lib.mjs";

const REAL_TRIALS = Number(process.env.BENCH_REAL_TRIALS ?? 10);
const realConfigurations = Math.ceil(REAL_TRIALS / 20);
if (REAL_TRIALS % realConfigurations !== 0)
  throw new Error("BENCH_REAL_TRIALS: up to 20, or a multiple of its configurations (200 = 10 × 20)");
const STAGGER_MS = Number(process.env.BENCH_STAGGER_MS ?? 10_000);
const IDLE_MS = 10_000;
const REPLAY_WORKER = "bench-replay-worker";
const m = await productModules();
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(1))
    .join(" ");
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitDone(client, studyId, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const study = await client.query("studies.get", { studyId });
    if (["done", "stopped", "refused"].includes(study.state)) return study;
    if (Date.now() > deadline) throw new Error(`study ${studyId} still ${study.state} after ${timeoutMs} ms`);
    await sleep(1000);
  }
}

/** The rAF sampler on a page for the duration of `during()`. */
async function framesDuring(page, during) {
  await startFrames(page);
  const result = await during();
  return { frames: frameStats(await stopFrames(page)), result };
}

const dataDir = tempDir("big-data");
const scripts = scriptsDir({ "one-step": ONE_STEP });
const codexHome = tempDir("big-codex");
const redis = await startRedis();
const mock = await m.startMockModel({ scriptsDir: scripts, apiKey: FAKE_KEY, host: "127.0.0.1" });
const runtime = m.createDockerRuntime();
let app = null;
let worker = null;
let browser = null;
let exitCode = 0;
let projectDir = null;
let projectId = null;
try {
  const image = await m.ensureAgentImage(runtime);
  const launched = await launchApp(dataDir, ["--no-worker", "--redis-url", redis.url]);
  app = launched.app;
  const { origin } = launched.url;
  const client = trpcClient(origin, launched.url.searchParams.get("token"));
  const webPid = app.child.pid;
  worker = startProcess(
    process.execPath,
    [path.join(ROOT, "bin", "invariant-web.mjs"), "worker", "--redis-url", redis.url, "--data-dir", dataDir],
    {
      env: {
        ...process.env,
        OPENAI_API_KEY: FAKE_KEY,
        OPENAI_BASE_URL: mock.url,
        CODEX_HOME: codexHome,
      },
    },
  );
  projectDir = calendarProject();
  const project = await client.mutate("projects.add", { hostPath: projectDir });
  projectId = project.id;
  await client.mutate("projects.update", {
    id: project.id,
    settings: { cpus: 1, memoryBytes: 1024 ** 3, pids: 512 },
  });
  const db = await m.openWebDatabase({ root: ROOT, dataDir });
  const info = await runtime.inspectImage(image);
  await db.environmentVersion.create({
    data: {
      projectId: project.id,
      version: 1,
      imageTag: image,
      imageId: info.id,
      origin: "base",
      status: "ready",
      active: true,
    },
  });

  browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await page.goto(launched.url.href);
  // idle: the dashboard open, nothing running
  await page.goto(`${origin}/projects`);
  await sleep(IDLE_MS / 2);
  const idle = sampleRss(webPid);
  await sleep(IDLE_MS / 2);
  const idleRss = rssStats(idle.stop());
  // the floor: frames of a blank page in the same browser, for as long as the replay below takes
  await page.goto("about:blank");
  const blank = await framesDuring(page, () => sleep(STAGGER_MS + 20_000));

  // a real study at the worker's default concurrency
  const workers = await client.query("system.workers");
  const concurrency = workers[0]?.capacity?.slots ?? 2;
  const realRss = sampleRss(webPid);
  const began = performance.now();
  const created = await client.mutate("studies.create", {
    projectId: project.id,
    title: `One step × ${REAL_TRIALS}`,
    taskPrompt: TASK_PROMPT,
    testCommand: TEST_COMMAND,
    testFiles: [{ source: "project", path: TEST_FILE }],
    concurrency,
    // at most 20 repeats per configuration: 200 trials are 10 configurations of the same script
    configurations: Array.from({ length: realConfigurations }, (_, index) => ({
      harness: "codex",
      model: "one-step",
      reasoningEffort: ["minimal", "low", "medium", "high"][index % 4],
      repeats: REAL_TRIALS / realConfigurations,
    })),
  });
  await page.goto(`${origin}/studies/${created.id}`);
  const real = await framesDuring(page, () => waitDone(client, created.id, 3600_000));
  const realWallMs = performance.now() - began;
  const realRssStats = rssStats(realRss.stop());
  const trialSeconds = real.result.trials.map((trial) => trial.agentSeconds ?? 0);
  const failedReal = real.result.trials.filter((trial) => trial.state !== "succeeded").length;
  await worker.stop();
  worker = null;

  // 200 live trials: the real trials' events again, for a running copy with 200 trials
  const recorded = await recordedTrials(db, created.id);
  const copy = await seedRunningCopy(db, {
    studyId: created.id,
    configurations: 10,
    repeats: 20,
    title: "200 live trials (replay)",
  });
  const publisher = m.connectRedis({ url: redis.url, name: "bench-replay" });
  const beat = () =>
    m.writeHeartbeat(publisher, {
      id: REPLAY_WORKER,
      host: os.hostname(),
      pid: process.pid,
      concurrency: 200,
      version: "bench",
      startedAt: new Date().toISOString(),
      lastSeen: new Date().toISOString(),
      capacity: null,
    });
  await beat();
  const beating = setInterval(() => void beat(), 5_000);
  await page.goto(`${origin}/studies/${copy.studyId}`);
  await page.locator('[data-testid="trial-row"]').first().waitFor();
  const liveRss = sampleRss(webPid);
  const live = await framesDuring(page, async () => {
    const published = await replay({
      m,
      redis: publisher,
      recorded,
      sourceStudyId: created.id,
      targetStudyId: copy.studyId,
      targets: copy.trialIds,
      workerId: REPLAY_WORKER,
      staggerMs: STAGGER_MS,
    });
    const study = await waitDone(client, copy.studyId, 600_000);
    return { published, study };
  });
  const liveRssStats = rssStats(liveRss.stop());
  clearInterval(beating);
  publisher.disconnect();
  const replayed = live.result.study.trials;
  const notSucceeded = replayed.filter((trial) => trial.state !== "succeeded").length;

  // reports of the 200 trials against the small study's, interleaved
  const reports = {};
  for (const format of ["md", "json", "csv"]) {
    const big = [];
    const small = [];
    for (let i = 0; i < 6; i++) {
      big.push(await client.download(`/api/studies/${copy.studyId}/report.${format}`));
      small.push(await client.download(`/api/studies/${created.id}/report.${format}`));
    }
    reports[format] = {
      big: round(median(big.slice(1).map((r) => r.ms))),
      small: round(median(small.slice(1).map((r) => r.ms))),
      bytes: big[0].bytes,
    };
  }
  await db.$disconnect();

  const peak = Math.max(realRssStats.peak, liveRssStats.peak);
  const trialNote = `real study: ${REAL_TRIALS} trials at concurrency ${concurrency} in ${round(realWallMs / 1000)} s (${round(realWallMs / REAL_TRIALS / 1000, 1)} s of wall time per trial, agent ${round(median(trialSeconds), 1)} s median; ${failedReal} not succeeded), so 200 real trials would take about ${round(((realWallMs / REAL_TRIALS) * 200) / 60000)} min`;
  const replayNote = `replay: ${live.result.published.events} events of ${recorded.length} recorded trials published for 200 trials over ${round(live.result.published.spanMs / 1000)} s (publish lag p95 ${live.result.published.lagP95} ms; ${notSucceeded} of 200 not succeeded at the end)`;
  console.log(trialNote);
  console.log(replayNote);
  console.log(
    `frames blank ${JSON.stringify(blank.frames)}; real study page ${JSON.stringify(real.frames)}; 200 live ${JSON.stringify(live.frames)}`,
  );
  console.log(
    `web RSS (MiB): idle ${JSON.stringify(idleRss)}; real study ${JSON.stringify(realRssStats)}; 200 live ${JSON.stringify(liveRssStats)}`,
  );
  console.log(`reports (ms, 200 vs ${REAL_TRIALS} trials): ${JSON.stringify(reports)}`);
  const machine = `${os.cpus().length} vCPU, load average at the end ${load()}`;
  writeResult({
    name: "big-study-web-rss",
    unit: "MiB",
    value: peak,
    baseline: idleRss.median,
    notes: `peak RSS of the web process sampled every 0.5 s through a real study and the 200-trial replay (real ${realRssStats.peak}, replay ${liveRssStats.peak}) vs the median of an idle dashboard (${idleRss.median}) in the same run. Target < 400 MiB: ${peak < 400 ? "met" : "missed"}. ${trialNote}. ${replayNote}. ${machine}.`,
  });
  writeResult({
    name: "big-study-frame-time",
    unit: "ms",
    value: live.frames.p95,
    baseline: blank.frames.p95,
    notes: `rAF intervals of the study page with 200 live trials during the replay: p50 ${live.frames.p50}, p95 ${live.frames.p95}, p99 ${live.frames.p99}, max ${live.frames.max} (${live.frames.over50} of ${live.frames.frames} over 50 ms); blank page floor p50 ${blank.frames.p50}, p95 ${blank.frames.p95}, max ${blank.frames.max}; the real ${REAL_TRIALS}-trial study's page p50 ${real.frames.p50}, p95 ${real.frames.p95}, max ${real.frames.max}. Target p95 < 50 ms: ${live.frames.p95 < 50 ? "met" : "missed"}. Headless Chromium 1440×900. ${machine}.`,
  });
  writeResult({
    name: "big-study-reports",
    unit: "ms",
    value: reports.md.big,
    baseline: reports.md.small,
    notes: `median of 5 downloads (after one warm-up), interleaved: Markdown ${reports.md.big} vs ${reports.md.small} ms (${reports.md.bytes} bytes), JSON ${reports.json.big} vs ${reports.json.small} ms (${reports.json.bytes} bytes), CSV ${reports.csv.big} vs ${reports.csv.small} ms (${reports.csv.bytes} bytes) for 200 vs ${REAL_TRIALS} trials. ${machine}.`,
  });
  if (failedReal > 0 || notSucceeded > 0) exitCode = 1;
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await browser?.close();
  await worker?.stop();
  await app?.stop();
  await mock.close();
  await redis.stop();
  if (projectId) {
    const images = (await run("docker", ["images", "-q", `invariant-trial/${projectId.toLowerCase()}`])).stdout
      .split("\n")
      .filter(Boolean);
    if (images.length > 0) await run("docker", ["rmi", "-f", ...new Set(images)]);
  }
  removeDirs(dataDir, scripts, codexHome, projectDir && path.dirname(projectDir));
}
process.exit(exitCode);
