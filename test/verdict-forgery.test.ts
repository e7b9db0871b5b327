import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { studyReportSchema } from "../src/shared/study-report";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  redisUrlFor,
  removeImages,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";

/**
 * An agent cannot forge its verdict with files it leaves behind: a junit.xml where all 23 tests pass
 * at the study's JUnit path, a rewritten test runner script (captured as runner config), a rewritten,
 * deleted or symlinked test file. The evaluation clears the JUnit path and restores every captured
 * file, so the verdict is the real 0/23; the trial records which captured files the agent changed, and
 * the reports say so. Both agents are real: Codex through the gateway to a scripted mock model, and a
 * plain command in the container.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 5);
const runtime = createDockerRuntime();

const PASSING_JUNIT = `<?xml version="1.0"?>\n<testsuites><testsuite name="calendar" tests="23">${Array.from(
  { length: 23 },
  (_, i) => `<testcase classname="calendar" name="check ${i + 1}" time="0.001"/>`,
).join("")}</testsuite></testsuites>\n`;

const FORGE = {
  description: "Leaves a passing junit.xml, rewrites the runner script and the test file.",
  steps: [
    { kind: "write-file", path: "junit.xml", content: PASSING_JUNIT },
    { kind: "write-file", path: "run-tests.sh", content: 'echo "23 passed, 0 failed"\n' },
    {
      kind: "write-file",
      path: "test/calendar.test.js",
      content: 'import test from "node:test";\ntest("ok", () => {});\n',
    },
    { kind: "reply", text: "All tests pass now." },
  ],
};
/** The same by a plain command: also deletes a captured config file and swaps the test file for a link. */
const FORGE_COMMAND = [
  `printf '%s' '${PASSING_JUNIT.replaceAll("\n", "")}' > junit.xml`,
  "rm package.json",
  "rm test/calendar.test.js && ln -s /etc/hostname test/calendar.test.js",
].join(" && ");

let stack: StudyStack | undefined;
let web: StudyWeb;
let projectId: string;
let study: StudyView;

beforeAll(async () => {
  stack = await startStudyStack({
    name: "verdict-forgery",
    redisUrl: REDIS_URL,
    runtime,
    scripts: { "forge-verdict": FORGE },
    concurrency: 2,
  });
  ({ web } = stack);
  const projectDir = calendarProject();
  fs.writeFileSync(path.join(projectDir, "run-tests.sh"), "node --test\n");
  projectId = await addCalendarProject({ web, runtime, projectDir });
}, 300_000);

afterAll(async () => {
  await stack?.close();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const trialOf = (model: string): TrialView | undefined =>
  study.trials.find((trial) => study.configurations.find((c) => c.id === trial.configurationId)?.model === model);

describe("an agent that leaves a passing JUnit report and edits captured files", () => {
  it("gets the real verdict, and its trial records what it changed", async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Forgery",
        taskPrompt: "Make the tests pass.",
        testCommand: "sh run-tests.sh",
        junitPath: "junit.xml",
        testFiles: [
          { source: "project", path: "test/calendar.test.js" },
          { source: "project", path: "run-tests.sh", role: "config" },
          { source: "project", path: "package.json", role: "config" },
        ],
        concurrency: 2,
        configurations: [
          { harness: "codex", model: "forge-verdict", reasoningEffort: "low", repeats: 1 },
          { harness: "command", model: "", reasoningEffort: "low", command: FORGE_COMMAND, repeats: 1 },
        ],
      },
      "admin",
    );
    expect(created.testFiles.map((file) => [file.path, file.role])).toEqual([
      ["test/calendar.test.js", "test"],
      ["run-tests.sh", "config"],
      ["package.json", "config"],
    ]);
    study = await waitForStudy({
      web,
      studyId: created.id,
      until: (view) => view.state === "done" || view.state === "refused" || view.state === "stopped",
      timeoutMs: 170_000,
      what: "the study to finish",
    });
    expect(study.state).toBe("done");
    expect(study.baseline).toMatchObject({ passed: 0, total: 23 });
    const codex = trialOf("forge-verdict");
    const command = study.trials.find((trial) => trial.id !== codex?.id);
    for (const trial of [codex, command]) {
      expect(trial?.state).toBe("succeeded");
      expect(trial?.verdict).toMatchObject({ passed: 0, failed: 23, total: 23 });
      expect(trial?.verdict?.source).not.toBe("junit");
    }
    expect(codex?.capturedChanges).toEqual([
      { path: "test/calendar.test.js", role: "test", change: "modified" },
      { path: "run-tests.sh", role: "config", change: "modified" },
      { path: "junit.xml", role: "report", change: "report-left" },
    ]);
    expect(command?.capturedChanges).toEqual([
      { path: "test/calendar.test.js", role: "test", change: "replaced" },
      { path: "package.json", role: "config", change: "deleted" },
      { path: "junit.xml", role: "report", change: "report-left" },
    ]);
    const log = await web.services.studies.trialLog({ trialId: codex?.id ?? "", tailBytes: 1 << 20 });
    expect(log.text).toContain("The agent changed files the evaluation restores or clears");
  });

  it("shows the changed captured files in the Markdown, JSON and CSV reports", async () => {
    const json = studyReportSchema.parse(
      JSON.parse((await web.services.studies.report({ studyId: study.id, format: "json" })).body),
    );
    expect(json.trials.every((trial) => (trial.capturedChanges?.length ?? 0) === 3)).toBe(true);
    expect(json.study.testFiles.map((file) => file.role)).toEqual(["test", "config", "config"]);
    const md = (await web.services.studies.report({ studyId: study.id, format: "md" })).body;
    expect(md).toContain("run-tests.sh (config, modified)");
    expect(md).toContain("package.json (config, deleted)");
    expect(md).toContain("junit.xml (report left behind)");
    const csv = (await web.services.studies.report({ studyId: study.id, format: "csv" })).body;
    const [header, ...rows] = csv.trimEnd().split("\r\n");
    expect(header).toContain("captured_changed");
    expect(rows.some((row) => row.includes("run-tests.sh (config, modified)"))).toBe(true);
  });
});
