// The review pages with large trials, in Debian Chromium against the real product. A data dir is seeded
// through the product's own modules: a project of FILES source files, its snapshot, and TRIALS finished
// trials whose workspaces each change every one of those files (a different edit per trial). Then
// `invariant-web` is launched on it and three figures are taken on the page's own clock:
//  1. review page: navigation start → the file tree lists all FILES changed files and the Monaco diff
//     of the first file shows its text (target < 1 s);
//  2. next file: pressing `j` → the diff shows the next file's text (target < 150 ms);
//  3. compare page of TRIALS trials: navigation start → the matrix has a row per file (target < 1.5 s).
// Baseline in the same run and the same way: the small /projects page until its project link is laid
// out and hydrated; and the floor of any page here: the app's 404 page (the layout and nothing else)
// until its link is hydrated. Loads alternate with the baseline and the floor; the first of each is a warm-up.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { importBundle } from "./bundle.mjs";
import { launchApp, launchChromium, readyAt } from "./browser-lib.mjs";
import { median, ROOT, writeResult } from "./lib.mjs";
import { round, tempDir } from "./study-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const FILES = Number(process.env.BENCH_FILES ?? 500);
const TRIALS = Number(process.env.BENCH_TRIALS ?? 5);
const m = await importBundle({
  name: "review-modules",
  exports: [
    'export { openWebDatabase } from "./src/server/web/wiring/web-core.ts";',
    'export { createProjectQueries } from "./src/server/web/projects/projects.queries.ts";',
    'export { createSnapshotQueries } from "./src/server/web/snapshots/snapshots.queries.ts";',
    'export { createSnapshotService } from "./src/server/web/snapshots/snapshot-service.ts";',
    'export { createWorkspaceService } from "./src/server/web/workspaces/workspace-service.ts";',
  ],
});

const fileName = (i) => `src/module-${String(i).padStart(3, "0")}.js`;
const source = (i, edit) =>
  Array.from({ length: 40 }, (_, line) =>
    line === 20 && edit !== null
      ? `  return ${i} + ${line} + ${edit}; // trial edit`
      : `  const v${line} = ${i} * ${line};`,
  ).join("\n") + "\n";

async function seed(dataDir) {
  const projectDir = path.join(tempDir("review-project"), "project");
  for (let i = 0; i < FILES; i++) {
    fs.mkdirSync(path.join(projectDir, "src"), { recursive: true });
    fs.writeFileSync(path.join(projectDir, fileName(i)), source(i, null));
  }
  const db = await m.openWebDatabase({ root: ROOT, dataDir });
  const project = await db.project.create({ data: { name: "review", hostPath: projectDir } });
  const projects = m.createProjectQueries(db);
  const snapshotQueries = m.createSnapshotQueries(db);
  const snapshot = await m
    .createSnapshotService({ dataDir, projects, snapshots: snapshotQueries })
    .create({ projectId: project.id });
  const workspaces = m.createWorkspaceService({ dataDir, snapshots: snapshotQueries });
  const study = await db.study.create({
    data: {
      projectId: project.id,
      title: `Review, ${TRIALS} trials × ${FILES} files`,
      taskPrompt: "Change every module.",
      testCommand: "node --test",
      snapshotId: snapshot.id,
      state: "done",
      configurations: { create: [{ position: 1, model: "bench-model", reasoningEffort: "low", repeats: TRIALS }] },
    },
    include: { configurations: true },
  });
  const trialIds = [];
  for (let t = 0; t < TRIALS; t++) {
    const workspace = await workspaces.create({ snapshotId: snapshot.id });
    for (let i = 0; i < FILES; i++) fs.writeFileSync(path.join(workspace.path, fileName(i)), source(i, t + 1));
    const trial = await db.trial.create({
      data: {
        studyId: study.id,
        configurationId: study.configurations[0].id,
        state: "succeeded",
        step: "Done",
        workspaceId: workspace.id,
        verdictPassed: 1,
        verdictFailed: 0,
        verdictSkipped: 0,
        verdictTotal: 1,
        verdictSource: "node-test",
        verdictOk: true,
        diffFiles: FILES,
        diffInsertions: FILES,
        diffDeletions: FILES,
        agentSeconds: 10 + t,
        inputTokens: 1000,
        outputTokens: 100,
        startedAt: new Date(),
        finishedAt: new Date(),
      },
    });
    trialIds.push(trial.id);
  }
  await db.$disconnect();
  return { studyId: study.id, trialIds, projectDir };
}

// In the page (each is sent to Chromium on its own: no closures): performance.now() once ready, else false.

/** The tree lists `files` entries and the diff editor shows `text`. */
function reviewReady({ files, text }) {
  const listed = globalThis.document.querySelectorAll('[data-testid="changed-file"]').length >= files;
  const editor = globalThis.document.querySelector('[data-testid="diff-editor"]');
  // Monaco draws spaces as no-break spaces
  const shown = listed && editor !== null && editor.textContent.replaceAll("\u00a0", " ").includes(text);
  return shown ? performance.now() : false;
}

function compareReady({ files }) {
  const rows = globalThis.document.querySelectorAll('table[aria-label="Compare matrix"] tbody tr').length;
  return rows >= files ? performance.now() : false;
}

function projectsReady() {
  const link = globalThis.document.querySelector('ul[aria-label="Projects"] a');
  const hydrated = link !== null && Object.keys(link).some((key) => key.startsWith("__reactFiber$"));
  return hydrated ? performance.now() : false;
}

function notFoundReady() {
  const link = globalThis.document.querySelector("main a[href='/projects']");
  const hydrated = link !== null && Object.keys(link).some((key) => key.startsWith("__reactFiber$"));
  return hydrated ? performance.now() : false;
}

async function measure(page, origin, seeded) {
  const [first] = seeded.trialIds;
  const load = async (pathname, ready, arg) => {
    await page.goto(`${origin}${pathname}`, { waitUntil: "commit" });
    return readyAt(page, ready, arg);
  };
  const review = await load(`/studies/${seeded.studyId}/trials/${first}`, reviewReady, {
    files: FILES,
    text: "return 0 + 20 + 1",
  });
  const before = await page.evaluate(() => performance.now());
  await page.keyboard.press("j");
  const next = (await readyAt(page, reviewReady, { files: FILES, text: "return 1 + 20 + 1" })) - before;
  const trials = seeded.trialIds.join(",");
  const compare = await load(`/studies/${seeded.studyId}/compare?trials=${trials}`, compareReady, { files: FILES });
  const projects = await load("/projects", projectsReady, null);
  const floor = await load("/no-such-page", notFoundReady, null);
  return { review, next, compare, projects, floor };
}

const dataDir = tempDir("review-data");
const seeded = await seed(dataDir);
let app = null;
let browser = null;
let exitCode = 0;
let page = null;
try {
  const launched = await launchApp(dataDir);
  app = launched.app;
  browser = await launchChromium();
  page = await (await browser.newContext({ viewport: { width: 1440, height: 900 } })).newPage();
  await page.goto(launched.url.href); // sets the access cookie
  const runs = [];
  for (let i = 0; i <= RUNS; i++) {
    const run = await measure(page, launched.url.origin, seeded);
    if (process.env.BENCH_DEBUG) console.log(JSON.stringify(run));
    if (i > 0) runs.push(run); // the first is a warm-up
  }
  const med = (key) => round(median(runs.map((run) => run[key])));
  const list = (key) => runs.map((run) => round(run[key])).join(" ");
  console.log(`review page (ms): ${list("review")}; next file: ${list("next")}; compare: ${list("compare")}`);
  console.log(`projects page (ms): ${list("projects")}; floor, the 404 page (ms): ${list("floor")}`);
  const notes = (what, target, value) =>
    `median of ${RUNS} warm runs in Chromium (headless, ${os.cpus().length} vCPU), ${TRIALS} trials × ${FILES} changed files: ${what}. ` +
    `Baseline: /projects until its link is hydrated; floor (the 404 page, layout only) ${med("floor")} ms. Target < ${target} ms: ${value < target ? "met" : "missed"}. Load average at the end ${os.loadavg()[0].toFixed(1)}.`;
  const baseline = med("projects");
  writeResult({
    name: "review-page-500",
    unit: "ms",
    value: med("review"),
    baseline,
    notes: notes("navigation → file tree with every file and the first diff's text", 1000, med("review")),
  });
  writeResult({
    name: "review-next-file",
    unit: "ms",
    value: med("next"),
    baseline,
    notes: notes("key j → the next file's diff text shown", 150, med("next")),
  });
  writeResult({
    name: "review-compare-5x500",
    unit: "ms",
    value: med("compare"),
    baseline,
    notes: notes("navigation → the compare matrix has a row per file", 1500, med("compare")),
  });
} catch (error) {
  console.error(error);
  // what the page showed when it did not get ready
  const shown = await page?.evaluate(() => globalThis.document.body.innerText.slice(0, 2000)).catch(() => null);
  if (shown) console.error(`The page at ${page.url()} showed:\n${shown}`);
  exitCode = 1;
} finally {
  await browser?.close();
  await app?.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  fs.rmSync(path.dirname(seeded.projectDir), { recursive: true, force: true });
}
process.exit(exitCode);
