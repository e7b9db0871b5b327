import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { LABEL } from "../src/server/core/runtime/container-spec";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
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
 * Issue 24, case 1: one trial flooding its output (`yes`) beside others must not loosen their limits.
 * On the busy worker of before, the trial that wrote 1 GiB into its container past a 64 MiB budget
 * ended `completed` and was committed as a 1 GiB image, and time limits overshot by tens of seconds:
 * both were measured and acted on by the worker's own event loop, which the flood kept busy. Now a
 * watchdog thread measures and stops (runtime/limits-watchdog.ts), the flood is read back-pressured,
 * and a container over its budget is never committed. The time limit's drill also blocks the worker's
 * loop (it runs in this process) across the limit, as the flood did on a busy machine: only something
 * off that loop can stop the container in time.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 29);
const runtime = createDockerRuntime();
const DISK_BUDGET = 64 * 1024 * 1024;
const AGENT_TIMEOUT_SEC = 20;
// written 5 s past the time limit: a limit that holds within a few seconds never lets it happen
const OVERSTAY = `sleep ${AGENT_TIMEOUT_SEC + 5}; echo overstayed > overstayed.txt; sleep 120`;
/** The worker's loop is left alone this long into the waiting trial's agent, then blocked until 9 s past its limit. */
const FREE_MS = 12_000;
// two `yes` at once: as much output as the engine passes on
const FLOOD = "yes & yes & wait";
// past the budget while it runs (the watchdog's measure stops it), and past it just before it exits (the
// measure before the commit refuses it): 1 GiB of apparent size in the container's own layer, at once
const OVERRUN = "sleep 6; truncate -s 1G /tmp/overrun.bin; sleep 15; echo survived";
const OVERRUN_AT_EXIT = "sleep 1; truncate -s 1G /tmp/at-exit.bin";

let stack: StudyStack | undefined;
let web: StudyWeb;
let projectId: string;

beforeAll(async () => {
  stack = await startStudyStack({ name: "limits-flood", redisUrl: REDIS_URL, runtime, scripts: {}, concurrency: 2 });
  ({ web } = stack);
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
  await web.services.projects.update({ id: projectId, settings: { diskBudgetBytes: DISK_BUDGET } });
}, 300_000);

afterAll(async () => {
  await stack?.close();
  if (projectId) removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

/** A study of a flood (FLOOD) beside `commands`, two at a time, waited for to the end: its trials in that order. */
async function floodBeside(options: {
  title: string;
  commands: string[];
  /** Runs once the trial of `commands[0]` is at its agent step. */
  duringAgent?: () => Promise<void>;
}): Promise<TrialView[]> {
  const created = await web.services.studies.create(
    {
      projectId,
      title: options.title,
      taskPrompt: "Flood, or do the other thing.",
      testCommand: "node --test",
      concurrency: 2,
      agentTimeoutSec: AGENT_TIMEOUT_SEC,
      configurations: [
        { harness: "command", model: "", reasoningEffort: "low", command: FLOOD, repeats: 1 },
        ...options.commands.map((command) => ({
          harness: "command" as const,
          model: "",
          reasoningEffort: "low" as const,
          command,
          repeats: 1,
        })),
      ],
    },
    "admin",
  );
  if (options.duringAgent) {
    await waitForStudy({
      web,
      studyId: created.id,
      until: (view) => view.trials.find((t) => t.configurationId === view.configurations[1]?.id)?.state === "agent",
      timeoutMs: 120_000,
      what: "the second trial's agent to start",
    });
    await options.duringAgent();
  }
  const done: StudyView = await waitForStudy({
    web,
    studyId: created.id,
    until: (view) => view.state === "done" || view.state === "refused" || view.state === "stopped",
    timeoutMs: 240_000,
    what: `the study "${options.title}" to finish`,
  });
  expect(done.state).toBe("done");
  return done.configurations.map((configuration) => {
    const trial = done.trials.find((candidate) => candidate.configurationId === configuration.id);
    if (!trial) throw new Error(`No trial of configuration ${configuration.id}.`);
    return trial;
  });
}

/** Blocks this thread (and so the worker's and the web side's event loop) without yielding. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

describe("limits with a flooding trial beside", () => {
  it("stops the trial that writes past its disk budget ('stopped: disk') and commits no image of it", async () => {
    const [flood, overrun, atExit] = await floodBeside({
      title: "Flood and overrun",
      commands: [OVERRUN, OVERRUN_AT_EXIT],
    });
    const images = await runtime.listImages({ [LABEL.project]: projectId });
    const tags = images.flatMap((image) => image.repoTags);
    for (const trial of [overrun, atExit]) {
      expect(trial).toMatchObject({ state: "failed", outcome: "disk", verdict: null, committedImageId: null });
      expect(trial?.error).toMatch(/^Stopped: it wrote 1\.00 GiB to disk, past the disk budget of 64\.0 MiB per trial/);
      // no image of it at all: none was committed from its container
      expect(tags.filter((tag) => tag.includes(trial?.id.toLowerCase() ?? "?"))).toEqual([]);
    }
    const log = await web.services.studies.trialLog({ trialId: overrun?.id ?? "", tailBytes: 1 << 20 });
    expect(log.text).not.toContain("survived");
    expect(flood).toMatchObject({ outcome: "timed-out" });
  }, 300_000);

  it("holds a time limit beside the flood, while the worker's loop is blocked past it: the waiting trial is stopped before it could write its marker", async () => {
    const [flood, overstay] = await floodBeside({
      title: "Flood and overstay",
      commands: [OVERSTAY],
      // what a flood did to the worker of before, for sure: no timer of this process runs across the limit
      duringAgent: async () => {
        await new Promise((resolve) => setTimeout(resolve, FREE_MS));
        blockEventLoop(AGENT_TIMEOUT_SEC * 1000 + 9_000 - FREE_MS);
      },
    });
    expect(overstay).toMatchObject({ state: "failed", outcome: "timed-out" });
    expect(overstay?.error).toMatch(new RegExp(`^Stopped after ${AGENT_TIMEOUT_SEC} s: the agent time limit\\.`));
    const workspace = dataDirPaths(stack?.dataDir ?? "").workspace(overstay?.workspaceId ?? "");
    for (const dir of [workspace.upper, workspace.tree])
      expect(fs.existsSync(`${dir}/overstayed.txt`), `${dir}/overstayed.txt`).toBe(false);
    expect(flood).toMatchObject({ outcome: "timed-out" });
  }, 300_000);
});
