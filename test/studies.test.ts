import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { PassThrough } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { runExportCommand } from "../src/cli/export-command";
import { parseCli } from "../src/cli/config";
import { describeStudy } from "../src/cli/study-progress";
import { studyReportSchema } from "../src/shared/study-report";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import { startWorker, type RunningWorker } from "../worker/main";
import {
  addCalendarProject,
  calendarProject,
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
import { connectRedis } from "../src/server/core/redis/connection";

/**
 * Studies end to end on the real engine: the web side (SQLite, recorder, dispatcher, sweeper) and an
 * in-process worker (BullMQ, Docker, the real Codex binary through the model gateway to the mock model).
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 8);
const runtime = createDockerRuntime();
const SLOW = {
  description: "Sleeps, so a test can stop it mid-run.",
  steps: [
    { kind: "run", command: "sleep 60" },
    { kind: "reply", text: "done" },
  ],
};
let dataDir: string;
let scripts: string;
let mock: Awaited<ReturnType<typeof startMock>>;
let web: StudyWeb;
let worker: RunningWorker;
let projectId: string;
let projectDir: string;
let deletable = "";

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "studies-test" });
  await redis.flushdb();
  redis.disconnect();
  dataDir = tempDir("studies-data");
  scripts = scriptsDir({ slow: SLOW });
  mock = await startMock(scripts);
  web = await openStudyWeb({ dataDir, redisUrl: REDIS_URL, runtime });
  worker = await startWorker({
    redisUrl: REDIS_URL,
    dataDir,
    concurrency: 3,
    version: "test",
    modelGateway: { openaiApiKey: FAKE_KEY, codexHome: tempDir("host-codex"), upstreamBaseUrl: mock.url },
    log: () => undefined,
  });
  projectDir = calendarProject();
  projectId = await addCalendarProject({ web, runtime, projectDir });
}, 300_000);

afterAll(async () => {
  await worker.stop("test finished");
  await web.close();
  await mock.close();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const base = (title: string) => ({
  projectId,
  title,
  taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
  testCommand: "node --test",
  testFiles: [{ source: "project" as const, path: "test/calendar.test.js" }],
});
const codex = (model: string, repeats = 1) => ({
  harness: "codex" as const,
  model,
  reasoningEffort: "low" as const,
  repeats,
});
const finished = (study: StudyView) => study.state === "done" || study.state === "stopped" || study.state === "refused";
const byModel = (study: StudyView, model: string): TrialView[] =>
  study.trials.filter((trial) => study.configurations.find((c) => c.id === trial.configurationId)?.model === model);

describe("a study on the calendar fixture", () => {
  let study: StudyView;

  it("runs a preflight (0/23), then every trial to a verdict judged against the captured test bytes", async () => {
    const created = await web.services.studies.create(
      {
        ...base("Calendar"),
        concurrency: 2,
        configurations: [
          codex("calendar-fix-all"),
          codex("calendar-fix-some"),
          codex("calendar-fix-none"),
          codex("calendar-cheat"),
        ],
      },
      "admin",
    );
    expect(created.state).toBe("preflight");
    expect(created.testFiles).toHaveLength(1);
    expect(created.testFiles[0]?.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(created.environment.imageId).toMatch(/^sha256:/);
    study = await waitForStudy({
      web,
      studyId: created.id,
      until: finished,
      timeoutMs: 170_000,
      what: "the study to finish",
    });
    expect(study.state).toBe("done");
    expect(study.baseline).toMatchObject({ passed: 0, total: 23 });
    const verdicts = Object.fromEntries(
      study.configurations.map((c) => [
        c.model,
        byModel(study, c.model).map((t) => `${t.state} ${t.outcome} ${t.verdict?.passed}/${t.verdict?.total}`),
      ]),
    );
    // every agent ran to the end and was judged: the run completed, whatever the tests said
    expect(verdicts).toEqual({
      "calendar-fix-all": ["succeeded completed 23/23"],
      "calendar-fix-some": ["succeeded completed 13/23"],
      "calendar-fix-none": ["succeeded completed 0/23"],
      // the agent rewrote the test file to pass trivially; the evaluation restored the captured bytes
      "calendar-cheat": ["succeeded completed 0/23"],
    });
    expect(study.counts.outcomes).toMatchObject({ completed: 4, "agent-failed": 0, stopped: 0 });
    const fixAll = byModel(study, "calendar-fix-all")[0];
    // the fix-all script reports 12000 input / 1800 output per response over 4 responses, metered by the gateway
    expect(fixAll?.tokens).toMatchObject({ input: 48_000, output: 7_200, total: 55_200 });
    expect(fixAll?.agentSeconds).toBeGreaterThan(0);
    expect(fixAll?.commandsRun).toBeGreaterThanOrEqual(2);
    expect(fixAll?.committedImageId).toMatch(/^sha256:/);
    expect(fixAll?.diff?.files).toBeGreaterThanOrEqual(1);
    const cheat = byModel(study, "calendar-cheat")[0];
    expect(cheat?.diff?.files).toBeGreaterThanOrEqual(1); // its edit of the test file is in its diff
    const tests = await web.services.studies.trialTests(fixAll?.id ?? "");
    expect(tests).toHaveLength(23);
    expect(tests.every((test) => test.status === "passed")).toBe(true);
    const log = await web.services.studies.trialLog({ trialId: fixAll?.id ?? "", tailBytes: 1 << 20 });
    expect(log.text).toContain("Verdict: 23/23");
    expect(log.text.trimEnd().split("\n").pop()).toMatch(/\] Trial completed: 23\/23 tests passed$/);
    const none = byModel(study, "calendar-fix-none")[0];
    const noneLog = await web.services.studies.trialLog({ trialId: none?.id ?? "", tailBytes: 1 << 20 });
    expect(noneLog.text.trimEnd().split("\n").pop()).toMatch(/\] Trial completed: 0\/23 tests passed$/);
    expect(noneLog.text).not.toContain("Trial succeeded");
    expect(containersWithLabel(`invariant.study=${study.id}`)).toEqual([]);
  });

  it("never ran more trials at once than the study's concurrency", async () => {
    const rows = await web.db.eventLog.findMany({
      where: { studyId: study.id, type: { in: ["trial.started", "trial.finished"] } },
      orderBy: { id: "asc" },
    });
    let running = 0;
    let peak = 0;
    for (const row of rows) {
      running += row.type === "trial.started" ? 1 : -1;
      peak = Math.max(peak, running);
    }
    expect(rows).toHaveLength(8);
    expect(peak).toBe(2);
  });

  it("files the agent runs' own events under the study and trial (room study:<id>)", async () => {
    const agentRows = await web.db.eventLog.findMany({ where: { studyId: study.id, type: { startsWith: "agent." } } });
    const trialIds = new Set(study.trials.map((trial) => trial.id));
    expect(agentRows.filter((row) => row.type === "agent.started")).toHaveLength(4);
    expect(agentRows.filter((row) => row.type === "agent.finished")).toHaveLength(4);
    expect(agentRows.some((row) => row.type === "agent.events")).toBe(true);
    expect(agentRows.every((row) => row.trialId !== null && trialIds.has(row.trialId))).toBe(true);
    const batch = web.emitted.find(
      (entry) => entry.event.event.type === "agent.events" && entry.event.event.studyId === study.id,
    );
    expect(batch?.room).toBe(`study:${study.id}`);
  });

  it("reports the figures in Markdown, JSON and CSV, in the dashboard and from the CLI", async () => {
    const md = (await web.services.studies.report({ studyId: study.id, format: "md" })).body;
    expect(md).toContain("23/23");
    expect(md).toContain("13/23");
    expect(md).toContain("node --test");
    const json = studyReportSchema.parse(
      JSON.parse((await web.services.studies.report({ studyId: study.id, format: "json" })).body),
    );
    expect(json.trials.map((trial) => trial.verdict?.passed).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual([
      0, 0, 13, 23,
    ]);
    expect(json.baseline).toMatchObject({ passed: 0, total: 23 });
    const output = path.join(tempDir("export"), "report.csv");
    const err = new PassThrough();
    const code = await runExportCommand({
      config: parseCli(["export", study.id, "--format", "csv", "--output", output, "--data-dir", dataDir], {}),
      root: REPO_ROOT,
      err,
    });
    expect(code).toBe(0);
    const csv = fs.readFileSync(output, "utf8");
    expect(csv.split("\r\n")[0]).toContain("tests_passed");
    expect(csv).toContain(",23,0,0,23,");
    expect(csv).toContain("55200");
  });
});

describe("command configurations", () => {
  it("are told apart by their labels on the study view, in the Markdown and CSV reports and in study show", async () => {
    const command = (line: string, label?: string) => ({
      harness: "command" as const,
      command: line,
      repeats: 1,
      ...(label ? { label } : {}),
    });
    const long = "printf 'notes about the calendar fix, written by a scripted agent' > NOTES.md";
    const created = await web.services.studies.create(
      {
        ...base("Command labels"),
        concurrency: 3,
        configurations: [
          command("sed -i 's/x/y/' src/calendar.js"),
          command(long),
          command("sed -i 's/x/y/' src/calendar.js"),
          command("true", "does nothing"),
        ],
      },
      "admin",
    );
    const study = await waitForStudy({ web, studyId: created.id, until: finished, timeoutMs: 170_000, what: "it" });
    expect(study.state).toBe("done");
    const labels = [
      "sed -i 's/x/y/' src/calendar.js",
      "printf 'notes about the calendar fix,…",
      "sed -i 's/x/y/' src/calendar.js #2",
      "does nothing",
    ];
    expect(study.configurations.map((c) => c.label)).toEqual(labels);
    expect(study.configurations.map((c) => c.customLabel)).toEqual([null, null, null, "does nothing"]);

    const md = (await web.services.studies.report({ studyId: study.id, format: "md" })).body;
    expect(md).toContain(
      "- Configuration 1 (sed -i 's/x/y/' src/calendar.js): command `sed -i 's/x/y/' src/calendar.js`, 1 repeat",
    );
    expect(md).toContain("- Configuration 4 (does nothing): command `true`, 1 repeat");
    expect(md).toContain("| 2.1 | printf 'notes about the calendar fix,… | completed |");
    expect(md).toContain("| 3.1 | sed -i 's/x/y/' src/calendar.js #2 | completed |");
    expect(md).not.toContain("(command)");
    const csv = (await web.services.studies.report({ studyId: study.id, format: "csv" })).body.split("\r\n");
    expect(csv[0]).toMatch(/^study_id,choice,repeat,attempt,configuration,harness,/);
    // the label with a comma is quoted (RFC 4180)
    expect(csv.slice(1, 5).map((row) => row.split(",command,")[0])).toEqual([
      `${study.id},1,1,1,sed -i 's/x/y/' src/calendar.js`,
      `${study.id},2,1,1,"printf 'notes about the calendar fix,…"`,
      `${study.id},3,1,1,sed -i 's/x/y/' src/calendar.js #2`,
      `${study.id},4,1,1,does nothing`,
    ]);
    // a command line given no model has none in the reports, not the stored placeholder
    expect(csv[1]).toContain(",command,,");
    const json = studyReportSchema.parse(
      JSON.parse((await web.services.studies.report({ studyId: study.id, format: "json" })).body),
    );
    expect(json.configurations.map((c) => c.label)).toEqual(labels);
    expect(json.configurations.map((c) => c.model)).toEqual(["", "", "", ""]);

    const shown = describeStudy(study);
    expect(shown).toContain("configuration 2   printf 'notes about the calendar fix,… × 1   (command: " + long + ")");
    expect(shown).toContain("configuration 3   sed -i 's/x/y/' src/calendar.js #2 × 1");
  });

  it("refuses a label over 60 characters, naming the field", async () => {
    await expect(
      web.services.studies.create(
        {
          ...base("Long label"),
          configurations: [{ harness: "command", command: "true", repeats: 1, label: "x".repeat(61) }],
        },
        "admin",
      ),
    ).rejects.toThrow(/A label is at most 60 characters/);
  });
});

describe("preflight refusals", () => {
  it("refuses a test command that cannot run, before any model call", async () => {
    const before = mock.requests();
    const created = await web.services.studies.create(
      { ...base("Broken"), testCommand: "no-such-test-runner --all", configurations: [codex("calendar-fix-all")] },
      "admin",
    );
    const study = await waitForStudy({ web, studyId: created.id, until: finished, what: "the refusal" });
    expect(study.state).toBe("refused");
    expect(study.refusal).toMatch(/not found/i);
    expect(study.preflight).toMatchObject({ exitCode: 127 });
    expect(study.preflight?.output).toContain("no-such-test-runner");
    expect(study.trials).toEqual([]);
    expect(mock.requests()).toBe(before);
  });

  it("refuses bad input before writing anything", async () => {
    const count = await web.db.study.count();
    await expect(
      web.services.studies.create(
        { ...base("No model"), configurations: [{ harness: "codex", model: "", reasoningEffort: "low", repeats: 1 }] },
        "admin",
      ),
    ).rejects.toThrow(/Name the model/);
    await expect(
      web.services.studies.create(
        {
          ...base("Missing file"),
          testFiles: [{ source: "project", path: "test/nope.test.js" }],
          configurations: [codex("calendar-fix-all")],
        },
        "admin",
      ),
    ).rejects.toMatchObject({ field: "testFiles.0.path" });
    expect(await web.db.study.count()).toBe(count);
  });

  it("captures a whole test folder, its symlinked fixture restored as a link (the snapshot, ignoring it, has neither)", async () => {
    fs.mkdirSync(path.join(projectDir, "test/fixtures"));
    fs.writeFileSync(path.join(projectDir, "test/fixtures/expected.json"), '{"days":31}\n');
    fs.symlinkSync("expected.json", path.join(projectDir, "test/fixtures/latest.json"));
    fs.writeFileSync(path.join(projectDir, ".gitignore"), "test/fixtures/\n");
    const created = await web.services.studies.create(
      {
        ...base("Folder"),
        testFiles: [{ source: "project", path: "test/" }],
        // exit 127: refused after the preflight, before any model call, with what the container saw
        testCommand: "readlink test/fixtures/latest.json; cat test/fixtures/latest.json; exit 127",
        configurations: [codex("calendar-fix-all")],
      },
      "admin",
    );
    expect(created.testFiles.map((file) => [file.path, file.kind])).toEqual([
      ["test/calendar.test.js", "file"],
      ["test/fixtures/expected.json", "file"],
      ["test/fixtures/latest.json", "symlink"],
    ]);
    const study = await waitForStudy({ web, studyId: created.id, until: finished, what: "the preflight" });
    expect(study.preflight?.output).toContain('expected.json\n{"days":31}\n');
    fs.rmSync(path.join(projectDir, "test/fixtures"), { recursive: true });
    fs.rmSync(path.join(projectDir, ".gitignore"));
  });
});

describe("stop and retry", () => {
  it("stops a running study: queued trials cancelled, the running one stopped, its container removed", async () => {
    const created = await web.services.studies.create(
      { ...base("Stop me"), concurrency: 1, configurations: [codex("slow"), codex("calendar-fix-all")] },
      "admin",
    );
    const running = await waitForStudy({
      web,
      studyId: created.id,
      until: (s) => s.trials.some((t) => t.state === "agent" && t.commandsRun > 0),
      what: "the slow trial to run its command",
    });
    const slowTrial = running.trials.find((t) => t.state === "agent");
    expect(containersWithLabel(`invariant.trial=${slowTrial?.id}`)).toHaveLength(1);
    await expect(web.services.studies.remove(created.id, "admin")).rejects.toThrow(/is running; stop it first/);
    await expect(web.services.projects.remove({ id: projectId })).rejects.toThrow(
      /still running: study "Stop me" \(running\)\. Stop them and remove/,
    );
    await web.services.studies.stop(created.id, "admin");
    const stopped = await waitForStudy({
      web,
      studyId: created.id,
      until: finished,
      timeoutMs: 30_000,
      what: "the stop",
    });
    expect(stopped.state).toBe("stopped");
    expect(stopped.trials.map((t) => t.state).sort()).toEqual(["stopped", "stopped"]);
    expect(stopped.trials.every((t) => t.error === "Stopped by admin.")).toBe(true);
    expect(stopped.trials.map((t) => t.outcome)).toEqual(["stopped", "stopped"]);
    expect(stopped.counts.outcomes).toMatchObject({ stopped: 2, completed: 0 });
    expect(containersWithLabel(`invariant.trial=${slowTrial?.id}`)).toEqual([]);

    // the slow script is now quick: a retry runs the stopped trial again as attempt 2
    fs.writeFileSync(
      path.join(scripts, "slow.json"),
      JSON.stringify({ description: "quick now", steps: [{ kind: "reply", text: "done quickly" }] }),
    );
    await web.services.studies.retry({ studyId: created.id, trialIds: [slowTrial?.id ?? ""] }, "admin");
    await expect(
      web.services.studies.retry({ studyId: created.id, trialIds: [slowTrial?.id ?? ""] }, "admin"),
    ).rejects.toMatchObject({ code: "CONFLICT" });
    const retried = await waitForStudy({ web, studyId: created.id, until: finished, what: "the retry" });
    const again = retried.trials.find((t) => t.id === slowTrial?.id);
    expect(again).toMatchObject({ state: "succeeded", outcome: "completed", attempt: 2 });
    // the stopped first attempt stays in the history
    expect(again?.attempts).toMatchObject([{ attempt: 1, state: "stopped", outcome: "stopped", model: "slow" }]);
    expect(again?.verdict).toMatchObject({ passed: 0, total: 23 });
    expect(retried.trials.find((t) => t.id !== slowTrial?.id)?.state).toBe("stopped");
    deletable = created.id;
  });

  it("deletes a finished study with every attempt's workspace, image and log; a busy image is removed at the next start", async () => {
    const study = await web.services.studies.get(deletable);
    const others = (await web.services.studies.list({ projectId })).filter((s) => s.id !== deletable);
    const finishedEvents = await web.db.eventLog.findMany({ where: { studyId: deletable, type: "trial.finished" } });
    const attempts = finishedEvents.map(
      (row) =>
        (JSON.parse(row.payload) as { data: { workspaceId: string | null; committedImageId: string | null } }).data,
    );
    const workspaces = [...new Set(attempts.flatMap((a) => (a.workspaceId ? [a.workspaceId] : [])))];
    const images = [...new Set(attempts.flatMap((a) => (a.committedImageId ? [a.committedImageId] : [])))];
    expect(workspaces.length).toBeGreaterThanOrEqual(2); // attempts 1 and 2 of the retried trial, and the other trial's
    expect(images.length).toBeGreaterThanOrEqual(1);
    const workspaceDir = (id: string) => path.join(dataDir, "workspaces", id);
    for (const id of workspaces) expect(fs.existsSync(workspaceDir(id))).toBe(true);
    for (const id of images) expect(await runtime.inspectImage(id)).not.toBeNull();
    const trialDirs = study.trials.map((t) => path.join(dataDir, "trials", t.id));
    // the retried trial has the logs of both attempts; the other one was cancelled before it started
    const retriedDir = path.join(dataDir, "trials", study.trials.find((t) => t.attempt === 2)?.id ?? "none");
    // (beside them, the worker's finish report of each attempt: finished-<n>.json)
    expect(
      fs
        .readdirSync(retriedDir)
        .filter((name) => name.startsWith("attempt-"))
        .sort(),
    ).toEqual(["attempt-1", "attempt-2"]);

    // a container still using one of the images: that image cannot go yet
    const busy = spawnSync("docker", ["create", "--label", "invariant.test=busy-image", images[0] ?? "", "true"], {
      encoding: "utf8",
    }).stdout.trim();
    expect(busy).toMatch(/^[0-9a-f]{64}$/);
    const result = await web.services.studies.remove(deletable, "admin");
    expect(result.removed).toMatchObject({ trials: 2, workspaces: workspaces.length, images: images.length });
    expect(result.leftovers).toEqual([expect.stringContaining(`image ${(images[0] ?? "").slice(0, 19)}`)]);
    await expect(web.services.studies.get(deletable)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await web.db.trial.count({ where: { studyId: deletable } })).toBe(0);
    // its events are gone; what is left is the record of the deletion itself, for the team
    await expect
      .poll(async () =>
        (await web.db.eventLog.findMany({ where: { studyId: deletable } })).map((row) => [
          row.type,
          (JSON.parse(row.payload) as { data: { reason?: string } }).data.reason,
        ]),
      )
      .toEqual([["study.changed", "Deleted by admin."]]);
    for (const id of workspaces) expect(fs.existsSync(workspaceDir(id)), id).toBe(false);
    for (const dir of trialDirs) expect(fs.existsSync(dir)).toBe(false);
    expect(fs.existsSync(path.join(dataDir, "studies", deletable))).toBe(false);
    for (const id of images.slice(1)) expect(await runtime.inspectImage(id)).toBeNull();
    expect(await runtime.inspectImage(images[0] ?? "")).not.toBeNull();
    expect(fs.existsSync(path.join(dataDir, "deletions", `study-${deletable}.json`))).toBe(true);

    // once the container is gone, the next start finishes the deletion
    spawnSync("docker", ["rm", "-f", busy]);
    await web.services.resumeRemovals();
    expect(await runtime.inspectImage(images[0] ?? "")).toBeNull();
    expect(fs.existsSync(path.join(dataDir, "deletions", `study-${deletable}.json`))).toBe(false);
    // the other studies keep everything
    expect((await web.services.studies.list({ projectId })).map((s) => s.id)).toEqual(others.map((s) => s.id));
    for (const other of others)
      for (const t of (await web.services.studies.get(other.id)).trials)
        if (t.workspaceId) expect(fs.existsSync(workspaceDir(t.workspaceId))).toBe(true);
    await expect(web.services.studies.remove(deletable, "admin")).rejects.toMatchObject({ code: "NOT_FOUND" });
  });
});

describe("retry with an edited configuration", () => {
  it("runs the trial as a new configuration, keeps the stopped attempt in its history, and leaves the old configuration alone", async () => {
    const created = await web.services.studies.create(
      {
        ...base("Retry edited"),
        concurrency: 1,
        configurations: [codex("calendar-fix-none"), codex("calendar-fix-none")],
      },
      "admin",
    );
    await waitForStudy({ web, studyId: created.id, until: (s) => s.state === "running", what: "the preflight" });
    await web.services.studies.stop(created.id, "admin");
    const stopped = await waitForStudy({ web, studyId: created.id, until: finished, what: "the stop" });
    const target = stopped.trials.find((t) => t.state === "stopped");
    expect(target).toBeDefined();
    const edit = { model: "calendar-fix-some", reasoningEffort: "high" as const, instructions: "Fix what you can." };
    // an edit makes one new configuration: the trials must share one
    await expect(
      web.services.studies.retry(
        { studyId: created.id, trialIds: stopped.trials.map((t) => t.id), configuration: edit },
        "admin",
      ),
    ).rejects.toMatchObject({ code: "BAD_REQUEST", field: "configuration" });

    const queued = await web.services.studies.retry(
      { studyId: created.id, trialIds: [target?.id ?? ""], configuration: edit },
      "admin",
    );
    expect(queued.configurations.map((c) => [c.choice, c.model, c.reasoningEffort, c.derivedFrom, c.repeats])).toEqual([
      [1, "calendar-fix-none", "low", null, 1],
      [2, "calendar-fix-none", "low", null, 1],
      [3, "calendar-fix-some", "high", target?.choice, 1],
    ]);
    const done = await waitForStudy({ web, studyId: created.id, until: finished, what: "the edited retry" });
    const again = done.trials.find((t) => t.id === target?.id);
    expect(again).toMatchObject({ choice: 3, attempt: 2, state: "succeeded", outcome: "completed" });
    expect(again?.verdict).toMatchObject({ passed: 13, total: 23 });
    expect(again?.attempts).toMatchObject([
      {
        attempt: 1,
        choice: target?.choice,
        model: "calendar-fix-none",
        reasoningEffort: "low",
        state: "stopped",
        outcome: "stopped",
        error: "Stopped by admin.",
        retriedBy: "admin",
      },
    ]);
    // the other trial keeps its configuration and its one attempt (stopped, or completed if it beat the stop)
    const other = done.trials.find((t) => t.id !== target?.id);
    expect([1, 2]).toContain(other?.choice);
    expect(other).toMatchObject({ attempt: 1, attempts: [] });
    expect(other?.state === "stopped" || other?.state === "succeeded").toBe(true);
    expect(done.counts.outcomes).toMatchObject({
      completed: other?.state === "succeeded" ? 2 : 1,
      stopped: other?.state === "stopped" ? 1 : 0,
    });

    // the report keeps both: the current attempt with its outcome, the earlier one in its history
    const json = JSON.parse((await web.services.studies.report({ studyId: created.id, format: "json" })).body) as {
      trials: { id: string; choice: number; outcome: string; verdictLevel: string; earlierAttempts: unknown[] }[];
      configurations: { choice: number; derivedFrom: number | null }[];
    };
    const reported = json.trials.find((t) => t.id === target?.id);
    expect(reported).toMatchObject({ choice: 3, outcome: "completed", verdictLevel: "partial" });
    expect(reported?.earlierAttempts).toMatchObject([{ attempt: 1, outcome: "stopped", model: "calendar-fix-none" }]);
    expect(json.configurations.find((c) => c.choice === 3)?.derivedFrom).toBe(target?.choice);
    const markdown = (await web.services.studies.report({ studyId: created.id, format: "md" })).body;
    expect(markdown).toContain("## Earlier attempts");
    expect(markdown).toContain(`(configuration ${target?.choice} edited on retry)`);
  });
});

describe("removing the project", () => {
  it("forgets it with its studies, snapshots, workspaces, trial and environment images (only images labelled as its own); the project's own files stay", async () => {
    const project = await web.services.projects.get(projectId);
    const hostFiles = () => fs.readdirSync(project.hostPath, { recursive: true, encoding: "utf8" }).sort();
    const filesBefore = hostFiles();
    // version 1 is the shared agent test image (not this project's: it must stay); version 2 is the project's own
    const [shared] = (await web.services.environments.overview(projectId)).versions.flatMap((v) =>
      v.imageId ? [v.imageId] : [],
    );
    const scratch = spawnSync("docker", ["create", shared ?? "", "true"], { encoding: "utf8" }).stdout.trim();
    const own = spawnSync(
      "docker",
      ["commit", "-c", `LABEL invariant.project=${projectId}`, scratch, `invariant-env/${projectId.toLowerCase()}:v2`],
      { encoding: "utf8" },
    ).stdout.trim();
    spawnSync("docker", ["rm", scratch]);
    await web.db.environmentVersion.create({
      data: {
        projectId,
        version: 2,
        imageTag: `invariant-env/${projectId.toLowerCase()}:v2`,
        imageId: own,
        origin: "command",
        status: "ready",
        active: false,
      },
    });
    const environmentImages = [own];
    const studies = await web.services.studies.list({ projectId });
    const trialImages = (await Promise.all(studies.map((s) => web.services.studies.get(s.id)))).flatMap((s) =>
      s.trials.flatMap((t) => (t.committedImageId ? [t.committedImageId] : [])),
    );
    const ours = (dir: string) =>
      fs.existsSync(path.join(dataDir, dir))
        ? fs.readdirSync(path.join(dataDir, dir)).filter((name) => !name.startsWith("."))
        : [];
    expect(own).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(trialImages.length).toBeGreaterThanOrEqual(3);
    expect(ours("workspaces").length).toBeGreaterThanOrEqual(3);
    expect(ours("snapshots").length).toBeGreaterThanOrEqual(1);
    for (const id of [...environmentImages, ...trialImages]) expect(await runtime.inspectImage(id), id).not.toBeNull();

    const result = await web.services.projects.remove({ id: projectId });
    expect(result).toEqual({ id: projectId, hostPath: project.hostPath, leftovers: [] });
    await expect(web.services.projects.get(projectId)).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(await web.services.studies.list({ projectId })).toEqual([]);
    expect(await web.db.eventLog.count({ where: { projectId } })).toBe(0);
    for (const id of [...environmentImages, ...trialImages]) expect(await runtime.inspectImage(id), id).toBeNull();
    expect(await runtime.inspectImage(shared ?? ""), "the shared image").not.toBeNull();
    expect(ours("workspaces")).toEqual([]);
    expect(ours("snapshots")).toEqual([]);
    expect(ours("trials")).toEqual([]);
    expect(ours("studies")).toEqual([]);
    expect(ours("deletions")).toEqual([]);
    expect(ours(path.join("logs", "environments"))).toEqual([]);
    expect(hostFiles()).toEqual(filesBefore);
  });
});
