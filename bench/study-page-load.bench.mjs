// Study page load with 200 finished trials, in Debian Chromium against the real product: a data dir is
// seeded (migrations, a project, a ready environment version, a done study with 3 configurations and
// 200 trials with verdicts, tokens, seconds, diffs and 23 per-test results each), then `invariant-web`
// is launched on it. Each load is a full navigation (warm browser cache); the figure is the time from
// navigation start until the trials table says it has all 200 rows (`aria-rowcount`; since issue 17 it
// renders only the rows near the viewport, use-row-window.ts) and its rendered `[data-testid="trial-row"]`
// rows are laid out and React owns them (interactive), read from the page's own clock (performance.now(),
// polled every animation frame).
// Baseline in the same run and the same way: the small `/projects` page until its project link is
// laid out and React owns it. Loads alternate between the two pages; the first of each is a warm-up.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { launchApp, launchChromium } from "./browser-lib.mjs";
import { median, ROOT, writeResult } from "./lib.mjs";
import { calendarProject, productModules, round, tempDir } from "./study-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 200);
const m = await productModules();

async function seed(dataDir) {
  const db = await m.openWebDatabase({ root: ROOT, dataDir });
  const projectDir = calendarProject();
  const project = await db.project.create({
    data: { name: "calendar", hostPath: projectDir, cpus: 1, memoryBytes: BigInt(1024 ** 3) },
  });
  const environment = await db.environmentVersion.create({
    data: {
      projectId: project.id,
      version: 1,
      imageTag: "invariant-test/agent:codex",
      imageId: `sha256:${"a".repeat(64)}`,
      origin: "base",
      status: "ready",
      active: true,
      durationMs: 40_000,
      sizeBytes: BigInt(686e6),
    },
  });
  const t0 = Date.now() - 3600_000;
  const models = ["calendar-fix-all", "calendar-fix-some", "calendar-fix-none"];
  const study = await db.study.create({
    data: {
      projectId: project.id,
      title: `Calendar, ${TRIALS} trials`,
      taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
      testCommand: "node --test",
      testFiles: JSON.stringify([{ path: "test/calendar.test.js", sha256: "b".repeat(64), bytes: 6123 }]),
      environmentVersionId: environment.id,
      imageId: environment.imageId,
      imageDigest: environment.imageId,
      state: "done",
      baselinePassed: 0,
      baselineFailed: 23,
      baselineSkipped: 0,
      baselineTotal: 23,
      baselineSource: "node-test",
      baselineOk: false,
      preflightExitCode: 1,
      preflightOutput: "# tests 23\n# pass 0\n# fail 23\n",
      concurrency: 2,
      createdAt: new Date(t0),
      startedAt: new Date(t0 + 2500),
      finishedAt: new Date(t0 + 2500 + TRIALS * 4000),
      configurations: {
        create: models.map((model, index) => ({
          position: index + 1,
          model,
          reasoningEffort: "low",
          repeats: Math.ceil((TRIALS - index) / models.length),
        })),
      },
    },
    include: { configurations: { orderBy: { position: "asc" } } },
  });
  const trials = [];
  for (let i = 0; i < TRIALS; i++) {
    const configuration = study.configurations[i % models.length];
    const passed = [23, 13, 0][i % models.length] - (i % 17 === 5 ? 1 : 0);
    const failedRun = i % 23 === 7;
    const started = t0 + 2500 + i * 4000;
    trials.push({
      studyId: study.id,
      configurationId: configuration.id,
      state: failedRun ? "failed" : "succeeded",
      step: "Done",
      error: failedRun ? "Codex reported: the turn failed (stream error)." : null,
      verdictPassed: passed,
      verdictFailed: 23 - passed,
      verdictSkipped: 0,
      verdictTotal: 23,
      verdictSource: "node-test",
      verdictOk: passed === 23,
      exitCode: passed === 23 ? 0 : 1,
      commandsRun: 2 + (i % 5),
      diffFiles: passed > 0 ? 1 : 0,
      diffInsertions: passed * 4,
      diffDeletions: passed,
      agentSeconds: 3 + (i % 11) * 1.7,
      evalSeconds: 1.8 + (i % 3) * 0.1,
      inputTokens: 12_000 * (1 + (i % 4)),
      cachedInputTokens: 500 * (i % 4),
      outputTokens: 1800 * (1 + (i % 4)),
      reasoningTokens: 80 * (i % 4),
      threadId: `thread-${i}`,
      harnessVersion: "0.63.0",
      committedImageId: `sha256:${i.toString(16).padStart(64, "0")}`,
      workerId: "bench-worker",
      queuedAt: new Date(t0 + 2500 + i),
      enqueuedAt: new Date(started - 5),
      startedAt: new Date(started),
      finishedAt: new Date(started + 3900),
    });
  }
  await db.trial.createMany({ data: trials });
  const rows = await db.trial.findMany({ where: { studyId: study.id }, select: { id: true, verdictPassed: true } });
  const results = rows.flatMap((row) =>
    Array.from({ length: 23 }, (_, k) => ({
      trialId: row.id,
      position: k,
      name: `calendar check ${k + 1}`,
      status: k < row.verdictPassed ? "passed" : "failed",
      durationMs: 0.4 + k / 10,
      message: k < row.verdictPassed ? null : "AssertionError: expected values to be strictly equal",
    })),
  );
  await db.evaluationResult.createMany({ data: results });
  await db.$disconnect();
  return { studyId: study.id, projectDir };
}

const dataDir = tempDir("page-data");
const { studyId, projectDir } = await seed(dataDir);
let app = null;
let browser = null;
let exitCode = 0;
try {
  const launched = await launchApp(dataDir);
  app = launched.app;
  const { url } = launched;
  browser = await launchChromium();
  const page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await page.goto(url.href); // sets the access cookie

  /** Navigation start → the page's ready condition, on the page's clock; plus where the time went. */
  async function load(pathname, selector, count) {
    await page.goto(`${url.origin}${pathname}`, { waitUntil: "commit" });
    const handle = await page.waitForFunction(
      ({ selector, count }) => {
        const nodes = globalThis.document.querySelectorAll(selector);
        if (nodes.length < count) return false;
        const last = nodes[nodes.length - 1];
        const laidOut = last.getClientRects().length > 0 && nodes[0].getClientRects().length > 0;
        const owned = Object.keys(last).some((key) => key.startsWith("__reactFiber$"));
        return laidOut && owned ? performance.now() : false;
      },
      { selector, count },
      { polling: "raf", timeout: 30_000 },
    );
    const readyMs = await handle.jsonValue();
    const timing = await page.evaluate(() => {
      const nav = performance.getEntriesByType("navigation")[0];
      const trpc = performance.getEntriesByType("resource").filter((entry) => entry.name.includes("/api/trpc/"));
      const main = trpc.sort((a, b) => b.duration - a.duration)[0];
      return {
        html: nav.responseEnd,
        dcl: nav.domContentLoadedEventEnd,
        trpcStart: main?.startTime ?? null,
        trpcEnd: main?.responseEnd ?? null,
        trpcBytes: main?.encodedBodySize ?? null,
        trpc: main?.name.split("/api/trpc/")[1]?.split("?")[0] ?? null,
      };
    });
    return { readyMs, ...timing };
  }

  const study = [];
  const projects = [];
  const studyRow = [`table[aria-rowcount="${TRIALS + 1}"] [data-testid="trial-row"]`, Math.min(TRIALS, 10)];
  const projectsRow = ['ul[aria-label="Projects"] a', 1];
  for (let i = 0; i <= RUNS; i++) {
    const s = await load(`/studies/${studyId}`, ...studyRow);
    const p = await load("/projects", ...projectsRow);
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify({ study: s, projects: p }));
    if (i === 0) continue; // warm-up
    study.push(s);
    projects.push(p);
  }
  const med = (list, key) => round(median(list.map((entry) => entry[key]).filter((value) => value !== null)));
  const detail = (list) =>
    `HTML ${med(list, "html")}, DOMContentLoaded ${med(list, "dcl")}, slowest tRPC call (${list[0].trpc}) ${med(list, "trpcStart")}→${med(list, "trpcEnd")} (${med(list, "trpcBytes")} bytes)`;
  console.log(`study page per load (ms): ${study.map((s) => round(s.readyMs)).join(" ")}; ${detail(study)}`);
  console.log(`projects page per load (ms): ${projects.map((p) => round(p.readyMs)).join(" ")}; ${detail(projects)}`);
  const value = med(study, "readyMs");
  writeResult({
    name: "study-page-load-200",
    unit: "ms",
    value,
    baseline: med(projects, "readyMs"),
    notes:
      `median of ${RUNS} warm full navigations in Chromium (headless, ${os.cpus().length} vCPU): /studies/<id> with ${TRIALS} finished trials until the trials table (windowed: aria-rowcount ${TRIALS + 1}) has its rendered rows laid out and hydrated (${detail(study)}) ` +
      `vs /projects with one project until its link is (${detail(projects)}). Target < 1000 ms: ${value < 1000 ? "met" : "missed"}. Load average at the end ${os.loadavg()[0].toFixed(1)}.`,
  });
} catch (error) {
  console.error(error);
  exitCode = 1;
} finally {
  await browser?.close();
  await app?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(path.dirname(projectDir), { recursive: true, force: true });
}
process.exit(exitCode);
