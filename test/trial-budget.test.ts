import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { resolveHostUser } from "../src/server/core/runtime/container-user";
import { DEFAULT_RUN_TOKEN_BUDGET } from "../src/shared/project-schemas";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { studyReportSchema } from "../src/shared/study-report";
import type { StudyView } from "../src/shared/study-schemas";
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
 * A trial's token budget, end to end: the project's budget per run (the study sets none) goes with the
 * trial's job to the worker's model gateway, which meters the real Codex binary's requests to a
 * scripted mock model. The spending configuration's agent is stopped when its tokens reach the budget,
 * its work so far is evaluated, and the trial ends "stopped: budget" on the study and in every report;
 * the frugal configuration under the same budget completes.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 11);
const runtime = createDockerRuntime();
const BUDGET = 2_500;

const SPEND = {
  description: "Each response costs 1,000 tokens; it would take five.",
  usage: { inputTokens: 900, outputTokens: 100 },
  steps: [
    { kind: "run", command: "echo one > spent-1.txt" },
    { kind: "run", command: "echo two > spent-2.txt" },
    { kind: "run", command: "echo three > spent-3.txt" },
    { kind: "run", command: "echo four > spent-4.txt" },
    { kind: "reply", text: "never reached" },
  ],
};
const FRUGAL = {
  usage: { inputTokens: 200, outputTokens: 20 },
  steps: [
    { kind: "run", command: "echo ok > frugal.txt" },
    { kind: "reply", text: "Done within budget." },
  ],
};

let stack: StudyStack | undefined;
let web: StudyWeb;
let projectId: string;
let study: StudyView;

beforeAll(async () => {
  stack = await startStudyStack({
    name: "trial-budget",
    redisUrl: REDIS_URL,
    runtime,
    scripts: { "spend-tokens": SPEND, "frugal-tokens": FRUGAL },
    concurrency: 2,
  });
  ({ web } = stack);
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
  await web.services.projects.update({ id: projectId, settings: { runTokenBudget: BUDGET } });
}, 300_000);

afterAll(async () => {
  await stack?.close();
  if (projectId) removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

describe("a trial's token budget", () => {
  it("stops the agent that reaches it ('stopped: budget', evaluated), and lets the other complete", async () => {
    const defaults = await web.services.studies.defaults(projectId);
    expect(defaults.tokenBudget).toBe(BUDGET); // what the new-study form shows
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Budget",
        taskPrompt: "Fix the calendar.",
        testCommand: "node --test",
        concurrency: 2,
        configurations: [
          { harness: "codex", model: "spend-tokens", reasoningEffort: "low", repeats: 1 },
          { harness: "codex", model: "frugal-tokens", reasoningEffort: "low", repeats: 1 },
        ],
      },
      "admin",
    );
    expect(created.tokenBudget).toBeNull(); // the study sets none: each trial gets the project's
    study = await waitForStudy({
      web,
      studyId: created.id,
      until: (view) => view.state === "done" || view.state === "refused" || view.state === "stopped",
      timeoutMs: 170_000,
      what: "the study to finish",
    });
    expect(study.state).toBe("done");
    const [spender, frugal] = [0, 1].map((position) =>
      study.trials.find((trial) => trial.configurationId === study.configurations[position]?.id),
    );
    expect(spender).toMatchObject({
      state: "failed",
      outcome: "budget",
      error: "Stopped: the run used 3,000 tokens, reaching its token budget of 2,500.",
      verdict: { passed: 0, total: 23 },
    });
    expect(spender?.tokens.total).toBe(3_000);
    expect(frugal).toMatchObject({ state: "succeeded", outcome: "completed" });
    const log = await web.services.studies.trialLog({ trialId: spender?.id ?? "", tailBytes: 1 << 20 });
    expect(log.text).toContain("Trial stopped: budget: Stopped: the run used 3,000 tokens");
  }, 240_000);

  it("says so in the reports: 'stopped: budget' in Markdown, the outcome budget in JSON and CSV", async () => {
    const json = studyReportSchema.parse(
      JSON.parse((await web.services.studies.report({ studyId: study.id, format: "json" })).body),
    );
    expect(json.trials.map((trial) => trial.outcome).sort()).toEqual(["budget", "completed"]);
    const md = (await web.services.studies.report({ studyId: study.id, format: "md" })).body;
    expect(md).toContain("stopped: budget");
    expect(md).toContain("token budget per trial: the project's");
    expect(json.study.tokenBudget).toBeNull();
    const [header, ...rows] = (await web.services.studies.report({ studyId: study.id, format: "csv" })).body
      .trimEnd()
      .split("\r\n");
    const column = (header ?? "").split(",").indexOf("outcome");
    expect(rows.map((row) => row.split(",")[column]).sort()).toEqual(["budget", "completed"]);
  });
});

/**
 * A trial's disk budget, end to end (issue 15 item 4): the project's budget goes with the trial's job to
 * the worker's runtime, which measures what the agent's container writes (its workspace's growth and its
 * own layer) every 2 s. The filling agent is stopped with the figures and its trial ends "stopped: disk"
 * (not committed, not evaluated); the fixing one beside it completes 23/23 with its files the host user's.
 * A test command that fills the disk on the untouched project gets the study refused, saying why.
 */
const DISK_BUDGET = 64 * 1024 * 1024;
// 40 × 8 MiB = 320 MiB into the workspace, slowly enough for the 2 s checks to stop it well before the end
const FILL =
  "i=0; while [ $i -lt 40 ]; do dd if=/dev/zero of=fill-$i.bin bs=1M count=8 2>/dev/null; i=$((i+1)); sleep 0.25; done; echo filled";

describe("a trial's disk budget", () => {
  it("stops the agent that writes past it ('stopped: disk', with the figures), while the other completes 23/23", async () => {
    // the token budget back to its default: the fixer's turn costs more than the 2,500 tokens above
    await web.services.projects.update({
      id: projectId,
      settings: { diskBudgetBytes: DISK_BUDGET, runTokenBudget: DEFAULT_RUN_TOKEN_BUDGET },
    });
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Disk",
        taskPrompt: "Fix the calendar.",
        testCommand: "node --test",
        concurrency: 2,
        configurations: [
          { harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 },
          { harness: "command", model: "", reasoningEffort: "low", command: FILL, repeats: 1 },
        ],
      },
      "admin",
    );
    const done = await waitForStudy({
      web,
      studyId: created.id,
      until: (view) => view.state === "done" || view.state === "refused" || view.state === "stopped",
      timeoutMs: 170_000,
      what: "the study to finish",
    });
    expect(done.state).toBe("done");
    const [fixer, filler] = [0, 1].map((position) =>
      done.trials.find((trial) => trial.configurationId === done.configurations[position]?.id),
    );
    expect(fixer).toMatchObject({ state: "succeeded", outcome: "completed", verdict: { passed: 23, total: 23 } });
    expect(filler).toMatchObject({ state: "failed", outcome: "disk", verdict: null, committedImageId: null });
    expect(filler?.error).toMatch(
      /^Stopped: it wrote \d+(\.\d)? MiB to disk, past the disk budget of 64\.0 MiB per trial \(the project's "Disk budget per trial" setting\)\.$/,
    );
    const log = await web.services.studies.trialLog({ trialId: filler?.id ?? "", tailBytes: 1 << 20 });
    expect(log.text).toContain("Trial stopped: disk: Stopped: it wrote");
    expect(log.text).not.toContain("filled");
    // what the agents' containers wrote in their workspaces belongs to the host user, not root
    const host = resolveHostUser();
    for (const [trial, file] of [
      [fixer, "src/calendar.js"],
      [filler, "fill-0.bin"],
    ] as const) {
      // a copy workspace's tree, or an overlay workspace's own layer (what the agent wrote is there)
      const workspace = dataDirPaths(stack?.dataDir ?? "").workspace(trial?.workspaceId ?? "");
      const stat = fs.statSync(path.join(fs.existsSync(workspace.upper) ? workspace.upper : workspace.tree, file));
      expect(`${stat.uid}:${stat.gid}`).toBe(`${host.uid}:${host.gid}`);
    }
    const json = studyReportSchema.parse(
      JSON.parse((await web.services.studies.report({ studyId: done.id, format: "json" })).body),
    );
    expect(json.trials.map((trial) => trial.outcome).sort()).toEqual(["completed", "disk"]);
  }, 240_000);

  it("refuses a study whose test command writes past it on the untouched project, saying why", async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Disk-hungry tests",
        taskPrompt: "Fix the calendar.",
        testCommand: `${FILL} && node --test`,
        configurations: [{ harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 }],
      },
      "admin",
    );
    const refused = await waitForStudy({
      web,
      studyId: created.id,
      until: (view) => view.state !== "preflight",
      timeoutMs: 120_000,
      what: "the preflight to finish",
    });
    expect(refused.state).toBe("refused");
    expect(refused.refusal).toMatch(
      /^The test command on the untouched project: Stopped: it wrote .* past the disk budget of 64\.0 MiB per trial/,
    );
  }, 150_000);
});
