import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LABEL } from "../src/server/core/runtime/container-spec";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import type { DependencyStep } from "../src/shared/dependency-schemas";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import { startWorker, type RunningWorker } from "../worker/main";
import { connectRedis } from "../src/server/core/redis/connection";
import {
  addCalendarProject,
  containersWithLabel,
  createDockerRuntime,
  FAKE_KEY,
  openStudyWeb,
  redisUrlFor,
  REPO_ROOT,
  removeImages,
  scriptsDir,
  startMock,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";
import { installDependencies, listTree, plain, textOf } from "./support/dependency-harness";

/**
 * Real projects on the real stack: the dependency step installs from the npm registry (through the
 * host's CA certificates) and from the Debian mirror, into a new environment version; studies on
 * those versions run in network mode none and find node_modules / .venv where the toolchain looks,
 * while nothing installed ever shows up in a diff, a report or an apply.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 6);
const runtime = createDockerRuntime();
let dataDir: string;
let mock: Awaited<ReturnType<typeof startMock>>;
let web: StudyWeb;
let worker: RunningWorker;
const projects: string[] = [];

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "dependencies-test" });
  await redis.flushdb();
  redis.disconnect();
  dataDir = tempDir("deps-data");
  mock = await startMock(scriptsDir());
  web = await openStudyWeb({ dataDir, redisUrl: REDIS_URL, runtime });
  worker = await startWorker({
    redisUrl: REDIS_URL,
    dataDir,
    concurrency: 2,
    version: "test",
    modelGateway: { openaiApiKey: FAKE_KEY, codexHome: tempDir("host-codex"), upstreamBaseUrl: mock.url },
    log: () => undefined,
  });
}, 300_000);

afterAll(async () => {
  await worker.stop("test finished");
  await web.close();
  await mock.close();
  for (const id of projects) {
    removeImages(`invariant-trial/${id.toLowerCase()}`);
    removeImages(`invariant-env/${id.toLowerCase()}`);
  }
});

function fixture(name: string): string {
  const dir = path.join(tempDir(name), name);
  fs.cpSync(path.join(REPO_ROOT, "fixtures", name), dir, { recursive: true });
  return dir;
}

const finished = (study: StudyView) => study.state === "done" || study.state === "stopped" || study.state === "refused";
const byModel = (study: StudyView, model: string): TrialView =>
  study.trials.find((trial) => study.configurations.find((c) => c.id === trial.configurationId)?.model === model)!;
const codex = (model: string) => ({ harness: "codex" as const, model, reasoningEffort: "low" as const, repeats: 1 });

/** What a trial leaves for people to see: its changed files and patch, and the study's reports. */
async function visibleText(options: { studyId: string; trialIds: string[] }) {
  const changes: string[] = [];
  const reports: string[] = [];
  for (const trialId of options.trialIds) {
    const files = await web.services.review.files({ trialId });
    changes.push(...files.items.map((item) => item.path));
    changes.push(await textOf((await web.services.review.patch({ trialId })).chunks));
  }
  for (const format of ["md", "json", "csv"] as const)
    reports.push((await web.services.studies.report({ studyId: options.studyId, format })).body);
  return { changes: changes.join("\n"), reports: reports.join("\n") };
}

describe("a Node.js project: vitest and dayjs from the npm registry through package-lock.json", () => {
  let projectDir: string;
  let projectId: string;
  let lower: string;

  it("detects npm ci, warns that nothing is installed, then installs into a new version with progress on the project page", async () => {
    projectDir = fixture("deps-node-project");
    projectId = await addCalendarProject({ web, runtime, projectDir });
    projects.push(projectId);
    const before = await web.services.dependencies.status(projectId);
    expect(before.step).toEqual({
      kind: "npm",
      command: "npm ci",
      outputs: ["node_modules"],
      manifests: ["package.json", "package-lock.json"],
    });
    expect(before.warning).toMatch(/no installed dependencies/);
    // a study before the install: the preflight refuses and points at the dependency step
    const early = await web.services.studies.create(
      {
        projectId,
        title: "Too early",
        taskPrompt: "Fix the deadlines.",
        testCommand: "npx vitest run",
        testFiles: [{ source: "project", path: "test/deadlines.test.js" }],
        configurations: [codex("deps-node-none")],
      },
      "admin",
    );
    const refused = await waitForStudy({ web, studyId: early.id, until: finished });
    expect(refused.state).toBe("refused");
    // npx finds no vitest installed and tries the registry, which trials cannot reach
    expect(refused.refusal).toMatch(
      /tried to download vitest from the npm registry.*dependency step on the project page/,
    );
    expect(refused.preflight?.output).toMatch(
      /\[invariant-web\] A module or program could not be loaded .*dependency step/,
    );

    const version = await installDependencies({ web, projectId, timeoutMs: 540_000 });
    expect(version).toMatchObject({ status: "ready", active: true, origin: "dependencies", version: 2 });
    const log = await web.services.environments.log(version.id);
    expect(log).toContain("[1/3] checking the toolchain");
    expect(log).toContain("[3/3] checking what it installed");
    expect(log).toMatch(/added \d+ packages/);
    const logEvents = web.emitted.filter(
      (entry) => entry.room === `project:${projectId}` && entry.event.event.type === "environment.log",
    );
    expect(logEvents.length).toBeGreaterThan(1);

    const after = await web.services.dependencies.status(projectId);
    expect(after.warning).toBeNull();
    expect(after.installed?.manifests.map((m) => m.path)).toEqual(["package.json", "package-lock.json"]);
    expect(after.installed?.manifests.every((m) => /^[0-9a-f]{64}$/.test(m.sha256 ?? ""))).toBe(true);
    lower = path.join(dataDirPaths(dataDir).absolute(after.installed!.dir), "tree", "node_modules");
    expect(fs.existsSync(path.join(lower, "vitest", "package.json"))).toBe(true);
    expect(fs.existsSync(path.join(lower, "dayjs", "package.json"))).toBe(true);
    const image = await runtime.inspectImage(version.imageTag);
    expect(image?.labels[LABEL.dependencyOutputs]).toBe("node_modules");
    expect(fs.readdirSync(dataDirPaths(dataDir).cache({ projectId, name: "npm" })).length).toBeGreaterThan(0);
  }, 600_000);

  it("gives a private-copy terminal session the installed folders as overlays; its writes never reach them", async () => {
    const session = await web.services.sessions.start({ projectId, kind: "shell", mode: "private" });
    // the answer comes once its container is created; it runs a moment later
    await expect
      .poll(async () => (await web.services.sessions.get(session.id)).state, { timeout: 60_000 })
      .toBe("running");
    const [container] = execFileSync("docker", ["ps", "-q", "--filter", `label=invariant.session=${session.id}`], {
      encoding: "utf8",
    }).split("\n");
    const shell = (script: string) => runtime.exec(container ?? "", ["sh", "-c", script]);
    const before = listTree(lower);
    expect((await shell("ls node_modules/vitest/package.json && touch node_modules/from-session")).exitCode).toBe(0);
    expect(listTree(lower)).toEqual(before);
    const scratch = dataDirPaths(dataDir).session(session.id).dependencyScratch;
    expect(fs.existsSync(scratch)).toBe(true);
    await web.services.sessions.finish(session.id);
    expect(fs.existsSync(scratch)).toBe(false);
  }, 120_000);

  it("runs a study in network mode none: the preflight parses vitest (4/8), trials pass or fail on their merits", async () => {
    const lowerBefore = listTree(lower);
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Deadlines",
        taskPrompt: "Make dueDate and workingDaysBetween skip weekends and holidays.",
        testCommand: "npx vitest run",
        testFiles: [{ source: "project", path: "test/deadlines.test.js" }],
        concurrency: 2,
        configurations: [codex("deps-node-fix"), codex("deps-node-none")],
      },
      "admin",
    );
    const study = await waitForStudy({ web, studyId: created.id, until: finished, timeoutMs: 240_000 });
    expect(study.refusal).toBeNull();
    expect(study.baseline).toMatchObject({ passed: 4, total: 8 });
    expect(plain(study.preflight?.output ?? "")).toContain("Tests  4 failed | 4 passed (8)");
    const fix = byModel(study, "deps-node-fix");
    const none = byModel(study, "deps-node-none");
    expect(fix.verdict).toMatchObject({ passed: 8, total: 8, source: "vitest" });
    expect(none.verdict).toMatchObject({ passed: 4, total: 8, source: "vitest" });

    // nothing installed shows up anywhere a person looks, and the installed copy is as the step left it
    const visible = await visibleText({ studyId: study.id, trialIds: [fix.id, none.id] });
    expect(visible.changes).toContain("src/deadlines.js");
    expect(visible.changes).not.toContain("node_modules");
    expect(visible.reports).not.toContain("node_modules");
    expect((await web.services.review.files({ trialId: none.id })).total).toBe(0);
    expect(listTree(lower)).toEqual(lowerBefore);
    expect(fs.readdirSync(dataDirPaths(dataDir).dependencyScratch)).toEqual([]);
    expect(containersWithLabel(`invariant.study=${study.id}`)).toEqual([]);

    const plan = await web.services.apply.previewTrial({ trialId: fix.id });
    expect(plan.steps.map((step) => step.path)).toEqual(["src/deadlines.js"]);
    await web.services.apply.runTrial({ trialId: fix.id, planHash: plan.planHash, appliedBy: "admin" });
    expect(fs.readFileSync(path.join(projectDir, "src/deadlines.js"), "utf8")).toContain(
      "isWorkingDay(date, holidays)",
    );
    expect(fs.existsSync(path.join(projectDir, "node_modules"))).toBe(false);
  }, 300_000);

  it("warns on the project page and the study form once the lockfile changes", async () => {
    const lock = path.join(projectDir, "package-lock.json");
    fs.writeFileSync(lock, fs.readFileSync(lock, "utf8").replace('"version": "1.0.0"', '"version": "1.0.1"'));
    const status = await web.services.dependencies.status(projectId);
    expect(status.changes).toEqual([{ path: "package-lock.json", change: "changed" }]);
    expect(status.warning).toMatch(/^package-lock\.json changed since the dependencies were installed — prepare again/);
  });
});

describe("a Python project: pytest and PyYAML from Debian packages into a .venv", () => {
  it("installs with an edited step (apt in the dependency step), then trials find .venv in network mode none", async () => {
    const projectDir = fixture("deps-python-project");
    const projectId = await addCalendarProject({ web, runtime, projectDir });
    projects.push(projectId);
    expect((await web.services.dependencies.status(projectId)).detected).toMatchObject({
      kind: "python",
      outputs: [".venv"],
      manifests: ["requirements.txt"],
    });
    const step: DependencyStep = {
      kind: "python",
      command:
        "apt-get update -q && apt-get install -y -q --no-install-recommends $(cat debian-packages.txt) && python3 -m venv --system-site-packages .venv",
      outputs: [".venv"],
      manifests: ["debian-packages.txt", "pyproject.toml", "requirements.txt"],
    };
    await expect(
      web.services.dependencies.setStep({ projectId, step: { ...step, outputs: ["vendor"] } }),
    ).rejects.toThrow(/vendor cannot hold installed dependencies/);
    expect((await web.services.dependencies.setStep({ projectId, step })).edited).toBe(true);

    const version = await installDependencies({ web, projectId, timeoutMs: 400_000 });
    expect(version.status).toBe("ready");
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Rota",
        taskPrompt: "Skipped weeks have nobody on call and use up no turn.",
        testCommand: ".venv/bin/python -m pytest -q",
        testFiles: [{ source: "project", path: "tests/test_schedule.py" }],
        configurations: [codex("deps-python-fix")],
      },
      "admin",
    );
    const study = await waitForStudy({ web, studyId: created.id, until: finished, timeoutMs: 200_000 });
    expect(study.refusal).toBeNull();
    expect(study.baseline).toMatchObject({ passed: 3, total: 5 });
    const trial = study.trials[0]!;
    expect(trial.verdict).toMatchObject({ passed: 5, total: 5, source: "pytest" });
    const visible = await visibleText({ studyId: study.id, trialIds: [trial.id] });
    expect(visible.changes).toContain("src/rota/schedule.py");
    expect(visible.changes).not.toContain(".venv");
    expect(visible.reports).not.toMatch(/\.venv\/(lib|pyvenv)|site-packages/); // the test command names .venv/bin/python

    fs.appendFileSync(path.join(projectDir, "debian-packages.txt"), "python3-requests\n");
    expect((await web.services.dependencies.status(projectId)).warning).toMatch(
      /^debian-packages\.txt changed since the dependencies were installed/,
    );
  }, 600_000);
});
