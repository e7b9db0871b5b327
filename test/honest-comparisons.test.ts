import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { studyReportSchema, type StudyReport } from "../src/shared/study-report";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import { diffManifests } from "../src/shared/trial-manifest";
import { tokenCost } from "../src/shared/model-prices";
import { AGENT_IMAGE } from "./support/agent-image";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  removeImages,
  REPO_ROOT,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";

/**
 * Issue 14 on the real stack (web side, worker, Codex in containers, the scripted mock model) on the
 * calendar fixture: the integrity flag for a trial whose tests did not all run, the per-test matrix
 * marking the tests that flip between repeats (a script that fails on odd repeats), ...
 */
const runtime = createDockerRuntime();

const shipped = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(REPO_ROOT, "mock-scripts", `${name}.json`), "utf8")) as Record<string, unknown>;

/** Fails on odd repeats: the 1st, 3rd ... conversation plays calendar-fix-some (13/23), the others calendar-fix-all. */
const FLAKY = { ...shipped("calendar-fix-some"), alternate: ["calendar-fix-all"] };
/** Leaves src/calendar.js with a syntax error: node:test reports the test file as one failed test. */
const BROKEN = {
  usage: { inputTokens: 1000, outputTokens: 100 },
  steps: [
    { kind: "write-file", path: "src/calendar.js", content: "export function isLeapYear(year {\n" },
    { kind: "reply", text: "Done." },
  ],
};

let redis: PrivateRedis | undefined;
let stack: StudyStack | undefined;
let web: StudyWeb;
let projectId: string;

beforeAll(async () => {
  // a Redis of its own: the shared one's databases are all taken by other test files
  redis = await startPrivateRedis({ dataDir: tempDir("honest-redis") });
  stack = await startStudyStack({
    name: "honest",
    redisUrl: redis.url,
    runtime,
    scripts: { "calendar-flaky": FLAKY, "calendar-broken": BROKEN },
    concurrency: 1,
  });
  ({ web } = stack);
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await stack?.close();
  await redis?.stop();
  if (projectId) removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const codex = (model: string, repeats = 1) => ({
  harness: "codex" as const,
  model,
  reasoningEffort: "low" as const,
  repeats,
});
const finished = (study: StudyView) => study.state === "done" || study.state === "stopped" || study.state === "refused";
const trialsOf = (study: StudyView, choice: number): TrialView[] =>
  study.trials.filter((trial) => trial.choice === choice).sort((a, b) => a.repeat - b.repeat);

async function report(studyId: string, format: "md" | "json" | "csv"): Promise<string> {
  return (await web.services.studies.report({ studyId, format })).body;
}

describe("honest comparisons on the calendar fixture", () => {
  let study: StudyView;
  let json: StudyReport;

  it("runs a study with a flaky configuration (fails on odd repeats) and one that breaks the tests", async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Honest",
        taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        concurrency: 1,
        configurations: [codex("calendar-flaky", 4), codex("calendar-broken")],
      },
      "admin",
    );
    study = await waitForStudy({ web, studyId: created.id, until: finished, timeoutMs: 400_000, what: "the study" });
    expect({ state: study.state, refusal: study.refusal }).toEqual({ state: "done", refusal: null });
    expect(study.baseline).toMatchObject({ passed: 0, total: 23 });
    expect(trialsOf(study, 1).map((trial) => `${trial.verdict?.passed}/${trial.verdict?.total}`)).toEqual([
      "13/23",
      "23/23",
      "13/23",
      "23/23",
    ]);
    json = studyReportSchema.parse(JSON.parse(await report(study.id, "json")));
  }, 420_000);

  it("flags the trial whose tests did not all run and judges it against the baseline's 23", async () => {
    const [broken] = trialsOf(study, 2);
    expect(broken?.testsMissing).toEqual({ missing: 22, expected: 23, counted: 1 });
    expect(broken?.verdict).toMatchObject({ passed: 0, failed: 23, total: 23, ok: false });
    expect(trialsOf(study, 1).every((trial) => trial.testsMissing === null)).toBe(true);
    expect(json.trials.find((trial) => trial.id === broken?.id)?.testsMissing).toEqual(broken?.testsMissing);
    const md = await report(study.id, "md");
    expect(md).toContain("0/23 ⚠ 22 did not run");
    expect(md).toContain("## Tests that did not run");
    expect(md).toContain("tests missing: 22 of 23 did not run");
    const [header, ...rows] = (await report(study.id, "csv")).trimEnd().split("\r\n");
    const column = (header ?? "").split(",").indexOf("tests_missing");
    expect(rows.map((row) => row.split(",")[column])).toEqual(["0", "0", "0", "0", "22"]);
  });

  it("marks the tests that flip between the flaky configuration's repeats in the matrix and the reports", async () => {
    const matrix = await web.services.studies.testMatrix(study.id);
    expect(matrix.trials.map((trial) => `${trial.choice}.${trial.repeat}`)).toEqual([
      "1.1",
      "1.2",
      "1.3",
      "1.4",
      "2.1",
    ]);
    const calendarTests = matrix.tests.filter((test) => test.cells.slice(0, 4).every((cell) => cell !== "missing"));
    expect(calendarTests).toHaveLength(23);
    const flipping = calendarTests.filter((test) => test.flipsIn.includes(1));
    // calendar-fix-some passes 13 of 23 on odd repeats, calendar-fix-all all 23 on even ones
    expect(flipping).toHaveLength(10);
    for (const test of flipping) expect(test.cells.slice(0, 4)).toEqual(["failed", "passed", "failed", "passed"]);
    expect(calendarTests.filter((test) => test.flipsIn.length === 0).every((test) => test.passed === 4)).toBe(true);
    // the broken trial ran none of them: they are missing there, and its one reported failure is missing elsewhere
    expect(calendarTests.every((test) => test.cells[4] === "missing")).toBe(true);
    expect(matrix.tests.filter((test) => test.cells[4] === "failed")).toHaveLength(1);
    expect(json.testMatrix).toEqual(matrix);
    const md = await report(study.id, "md");
    expect(md).toContain("## Tests × trials");
    expect(md).toContain("10 tests flip between repeats of one configuration");
    expect(md.split("\n").filter((line) => line.endsWith("| ✗ | ✓ | ✗ | ✓ | · | ⇄ configuration 1 |"))).toHaveLength(
      10,
    );
  });

  it("records each trial's manifest: image, snapshot, configuration, captured file hashes, limits, Codex version", () => {
    const [flaky, broken] = [trialsOf(study, 1)[0], trialsOf(study, 2)[0]];
    expect(flaky?.manifest).toMatchObject({
      version: 1,
      study: { id: study.id, projectId },
      environment: { imageId: study.environment.imageId, version: 1 },
      snapshot: { id: study.snapshotId },
      configuration: { harness: "codex", model: "calendar-flaky", reasoningEffort: "low", overrides: [] },
      testCommand: "node --test",
      testFiles: study.testFiles,
      limits: { cpus: 1, memoryBytes: 1024 * 1024 * 1024, network: "none" },
      concurrency: 1,
      attempt: 1,
      harnessVersion: flaky?.harnessVersion,
    });
    // the model the provider (the mock) put in its responses, recorded by the worker's gateway
    expect(flaky?.manifest?.reportedModel).toBe("calendar-flaky");
    expect(flaky?.harnessVersion).toMatch(/\d+\.\d+/);
    expect(json.version).toBe(2);
    expect(json.trials.find((trial) => trial.id === flaky?.id)?.manifest).toEqual(flaky?.manifest);
    // what differed between a trial of each configuration: the model (asked for and reported), nothing else
    expect(diffManifests(flaky!.manifest!, broken!.manifest!).map((d) => d.path)).toEqual([
      "configuration.model",
      "reportedModel",
    ]);
  });

  it("reruns the study from its manifests with the original limits: a new study pointing to it, the same verdicts", async () => {
    // the project's limits change after the study; the rerun keeps the manifest's
    await web.services.projects.update({ id: projectId, settings: { cpus: 2 } });
    const created = await web.services.studies.rerun({ studyId: study.id }, "admin");
    expect(created.rerunOf).toEqual({ studyId: study.id, trialId: null });
    expect(created.snapshotId).toBe(study.snapshotId);
    expect(created.testFiles).toEqual(study.testFiles);
    expect(created.configurations.map((c) => [c.model, c.repeats])).toEqual([
      ["calendar-flaky", 4],
      ["calendar-broken", 1],
    ]);
    const rerun = await waitForStudy({
      web,
      studyId: created.id,
      until: finished,
      timeoutMs: 400_000,
      what: "the rerun",
    });
    expect(rerun.state).toBe("done");
    const verdicts = (view: StudyView) =>
      view.trials.map((trial) => `${trial.choice}.${trial.repeat} ${trial.verdict?.passed}/${trial.verdict?.total}`);
    expect(verdicts(rerun)).toEqual(verdicts(study));
    const rerunJson = studyReportSchema.parse(JSON.parse(await report(rerun.id, "json")));
    expect(rerunJson.comparisons?.map((c) => c.verdict)).toEqual(json.comparisons?.map((c) => c.verdict));
    expect(rerun.trials.every((trial) => trial.manifest?.limits.cpus === 1)).toBe(true);
    const [a, b] = [trialsOf(study, 1)[0]?.manifest, trialsOf(rerun, 1)[0]?.manifest];
    expect(diffManifests(a!, b!).map((d) => d.path)).toEqual([]);
  }, 420_000);

  it("reruns one trial, and refuses a rerun whose environment image was deleted, saying so", async () => {
    const trial = trialsOf(study, 2)[0];
    const one = await web.services.studies.rerun({ studyId: study.id, trialId: trial?.id }, "admin");
    expect(one.rerunOf).toEqual({ studyId: study.id, trialId: trial?.id });
    expect(one.configurations.map((c) => [c.model, c.repeats])).toEqual([["calendar-broken", 1]]);
    await waitForStudy({ web, studyId: one.id, until: finished, timeoutMs: 200_000, what: "the one-trial rerun" });

    // an environment whose image is then deleted: a study on it, then docker rmi
    const doomed = `invariant-test/honest-doomed:${Date.now()}`;
    const build = spawnSync("docker", ["build", "-q", "-t", doomed, "-"], {
      input: `FROM ${AGENT_IMAGE}\nLABEL honest.doomed=${Date.now()}\n`,
      encoding: "utf8",
    });
    expect(build.status, build.stderr).toBe(0);
    const info = await runtime.inspectImage(doomed);
    await web.db.environmentVersion.updateMany({ where: { projectId }, data: { active: false } });
    await web.db.environmentVersion.create({
      data: {
        projectId,
        version: 2,
        imageTag: doomed,
        imageId: info?.id,
        origin: "base",
        status: "ready",
        active: true,
      },
    });
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Doomed",
        taskPrompt: "Fix the calendar.",
        testCommand: "node --test",
        configurations: [codex("calendar-fix-all")],
      },
      "admin",
    );
    const ran = await waitForStudy({
      web,
      studyId: created.id,
      until: finished,
      timeoutMs: 200_000,
      what: "the doomed study",
    });
    expect(ran.trials[0]?.manifest?.environment).toMatchObject({ imageId: info?.id, version: 2 });
    removeImages(`invariant-trial/${projectId.toLowerCase()}`); // the trials' result images are its children
    removeImages(doomed);
    expect(await runtime.inspectImage(info?.id ?? "")).toBeNull();
    const before = (await web.services.studies.list({ projectId })).length;
    await expect(web.services.studies.rerun({ studyId: ran.id }, "admin")).rejects.toThrow(
      /Cannot rerun: the environment image sha256:[0-9a-f]{12} \(environment v2\) was deleted from Docker/,
    );
    expect((await web.services.studies.list({ projectId })).length).toBe(before);
    // back on the first environment for what follows
    await web.db.environmentVersion.updateMany({ where: { projectId }, data: { active: false } });
    await web.db.environmentVersion.updateMany({ where: { projectId, version: 1 }, data: { active: true } });
  }, 420_000);

  it("prices the trials by the price table: per trial, per configuration, the study; unknown price said so", async () => {
    const flakyPrice = {
      model: "calendar-flaky",
      inputPerMillion: 2,
      cachedInputPerMillion: 0.5,
      outputPerMillion: 8,
      reasoningPerMillion: 8,
    };
    await web.services.studies.setPrice(flakyPrice, "admin");
    const priced = studyReportSchema.parse(JSON.parse(await report(study.id, "json")));
    const costs = priced.costs!;
    expect(costs.unknownModels).toEqual(["calendar-broken"]);
    expect(costs.total).toBeNull();
    for (const trial of trialsOf(study, 1))
      expect(costs.trials.find((cost) => cost.trialId === trial.id)?.cost).toBeCloseTo(
        tokenCost(trial.tokens, flakyPrice),
        12,
      );
    expect(costs.configurations[0]?.total).toBeCloseTo(
      trialsOf(study, 1).reduce((sum, trial) => sum + tokenCost(trial.tokens, flakyPrice), 0),
      12,
    );
    expect(costs.configurations[1]).toMatchObject({ model: "calendar-broken", median: null, total: null });
    expect(await report(study.id, "md")).toContain("Study total: unknown price (no price for `calendar-broken`)");
    await web.services.studies.setPrice({ ...flakyPrice, model: "calendar-broken" }, "admin");
    const all = studyReportSchema.parse(JSON.parse(await report(study.id, "json"))).costs!;
    expect(all.total).toBeCloseTo(
      study.trials.reduce((sum, trial) => sum + tokenCost(trial.tokens, flakyPrice), 0),
      12,
    );
    const [header, ...rows] = (await report(study.id, "csv")).trimEnd().split("\r\n");
    const column = (header ?? "").split(",").indexOf("cost_usd");
    expect(rows.every((row) => Number(row.split(",")[column]) > 0)).toBe(true);
    await web.services.studies.resetPrice("calendar-broken", "admin");
    expect((await web.services.studies.prices()).some((row) => row.model === "calendar-broken")).toBe(false);
  });

  it("stops the queued trials when the study's token budget is reached", async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Budgeted",
        taskPrompt: "Fix the calendar.",
        testCommand: "node --test",
        concurrency: 1,
        budget: { tokens: 1000 },
        configurations: [codex("calendar-fix-all", 3)],
      },
      "admin",
    );
    expect(created.budget).toEqual({ tokens: 1000, money: null });
    const ran = await waitForStudy({
      web,
      studyId: created.id,
      until: finished,
      timeoutMs: 200_000,
      what: "the budgeted study",
    });
    const [first, ...rest] = trialsOf(ran, 1);
    expect(first).toMatchObject({ state: "succeeded" });
    expect(first!.tokens.total).toBeGreaterThanOrEqual(1000);
    for (const trial of rest) {
      expect(trial).toMatchObject({ state: "stopped", outcome: "stopped" });
      expect(trial.error).toMatch(
        /^Study budget reached: [\d,]+ of 1,000 tokens used; the queued trials were stopped\.$/,
      );
    }
    expect(ran.state).toBe("done");
    // a budget in dollars needs a price for every model
    await expect(
      web.services.studies.create(
        {
          projectId,
          title: "Unpriced",
          taskPrompt: "Fix the calendar.",
          testCommand: "node --test",
          budget: { money: 1 },
          configurations: [codex("calendar-fix-none")],
        },
        "admin",
      ),
    ).rejects.toThrow(/A budget in dollars needs a price for every model, and "calendar-fix-none" has none/);
  }, 240_000);
});
