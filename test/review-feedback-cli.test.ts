import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cliFailureSchema, cliResultSchema, type CliCommandName, type CliData } from "../src/cli/cli-schemas";
import { parseCli } from "../src/cli/config";
import { runWorkflowCommand } from "../src/cli/workflow-commands";
import { createRequestHandler } from "../src/server/web/http/request-handler";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import type { StudyView } from "../src/shared/study-schemas";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  redisUrlFor,
  removeImages,
  waitForStudy,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";

/**
 * The CLI's review feedback commands (`trial comment`, `trial comments`, `trial follow-up --wait`) through
 * the product's HTTP handler and tRPC, on the real stack (a worker, Codex in containers, the mock model),
 * every --json output parsed with its documented schema.
 */
const runtime = createDockerRuntime();
const ADMIN_TOKEN = "a_admintokenadmintokenadmintoken00"; // openStudyWeb's
let stack: StudyStack | undefined;
let server: http.Server | undefined;
let projectId = "";

beforeAll(async () => {
  const redisUrl = redisUrlFor(inject("redisUrl"), 37);
  stack = await startStudyStack({ name: "feedback-cli", redisUrl, runtime, scripts: {}, concurrency: 2 });
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir: calendarProject() });
  server = http.createServer();
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const handler = createRequestHandler({
    services: stack.web.services,
    guard: { bindHost: "127.0.0.1", port, allowedHosts: [] },
    displayAddress: `127.0.0.1:${port}`,
    handleNext: (_req, res) => Promise.resolve(void res.end("page")),
    log: () => undefined,
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res));
  const paths = dataDirPaths(stack.dataDir);
  fs.writeFileSync(paths.launcherFile, JSON.stringify({ pid: process.ppid, url: `http://127.0.0.1:${port}` }));
  fs.writeFileSync(paths.accessTokenFile, `${ADMIN_TOKEN}\n`);
}, 300_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await stack?.close();
  if (projectId) removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const config = parseCli([...args, "--data-dir", stack?.dataDir ?? ""], {});
  const io = { out: (text: string) => (stdout += text), err: (text: string) => (stderr += text), isTTY: false };
  const code = await runWorkflowCommand({ config, io, pollMs: 200 });
  return { code, stdout, stderr };
}

async function json<C extends CliCommandName>(command: C, args: string[]) {
  const result = await cli([...args, "--json"]);
  expect(result.code, `${result.stderr}${result.stdout.slice(0, 1500)}`).toBe(0);
  const envelope: unknown = cliResultSchema(command).parse(JSON.parse(result.stdout));
  return (envelope as { data: CliData<C> }).data;
}

async function failure(args: string[]) {
  const result = await cli([...args, "--json"]);
  if (result.code === 0) throw new Error(`expected a failure: ${result.stdout}`);
  const { error } = cliFailureSchema.parse(JSON.parse(result.stdout));
  return { ...error, exitCode: result.code };
}

describe("trial comment / comments / follow-up", () => {
  let study: StudyView;

  it("comments on a trial's lines, lists the comments, and refuses bad input with the usage or refusal exit", async () => {
    const web = stack?.web;
    if (!web) throw new Error("no stack");
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Feedback from the CLI",
        taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        concurrency: 1,
        configurations: [{ harness: "codex", model: "calendar-feedback", reasoningEffort: "low", repeats: 1 }],
      },
      "admin",
    );
    study = await waitForStudy({ web, studyId: created.id, until: (view) => view.state === "done" });
    const trialId = study.trials[0]?.id ?? "";
    const comment = await json("trial comment", [
      "trial",
      "comment",
      "--trial",
      trialId,
      "--path",
      "src/calendar.js",
      "--lines",
      "29-31",
      "--body",
      "weekday, daysBetween, isoWeek and formatRange still throw: implement them.",
    ]);
    expect(comment).toMatchObject({ trialId, path: "src/calendar.js", startLine: 29, endLine: 31, sentInTrial: null });
    const listed = await json("trial comments", ["trial", "comments", "--trial", trialId]);
    expect(listed.comments.map((entry) => entry.id)).toEqual([comment.id]);
    expect(await failure(["trial", "comment", "--trial", trialId, "--lines", "3", "--body", "x"])).toMatchObject({
      exitCode: 2,
    });
    expect(await failure(["trial", "comment", "--trial", trialId, "--path", "nope.js", "--body", "x"])).toMatchObject({
      exitCode: 3,
      code: "BAD_REQUEST",
    });
  });

  it("continues the trial with its comments and waits for the follow-up's verdict", async () => {
    const trialId = study.trials[0]?.id ?? "";
    const result = await json("trial follow-up", [
      "trial",
      "follow-up",
      "--trial",
      trialId,
      "--feedback",
      "Keep the functions you already wrote.",
      "--wait",
      "--timeout",
      "170",
    ]);
    expect(result.trials).toEqual([
      expect.objectContaining({
        parentTrialId: trialId,
        name: "Trial 1.1.1",
        state: "succeeded",
        verdict: expect.objectContaining({ passed: 23, total: 23 }) as unknown,
      }),
    ]);
    const human = await cli(["trial", "comments", "--trial", trialId]);
    expect(human.stdout).toContain(`src/calendar.js:29-31 — weekday`);
    expect(human.stdout).toContain(`[sent in trial ${result.trials[0]?.id ?? ""}]`);
    // nothing left to send: refused (exit 3), nothing queued
    expect(await failure(["trial", "follow-up", "--trial", trialId])).toMatchObject({
      exitCode: 3,
      code: "PRECONDITION_FAILED",
    });
  });

  it("gives a command configuration the feedback as its task in a copy of the parent's workspace", async () => {
    const web = stack?.web;
    if (!web) throw new Error("no stack");
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Command feedback",
        taskPrompt: "first task",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        concurrency: 1,
        // appends the task it is given (on stdin) to notes.txt
        configurations: [{ harness: "command", command: "cat >> notes.txt; echo >> notes.txt", repeats: 1 }],
      },
      "admin",
    );
    let done = await waitForStudy({ web, studyId: created.id, until: (view) => view.state === "done" });
    const parent = done.trials[0];
    expect(parent?.threadId).toBeNull();
    await web.services.studies.continueWithFeedback(
      { studyId: created.id, trialIds: [parent?.id ?? ""], feedback: "second task" },
      "admin",
    );
    done = await waitForStudy({ web, studyId: created.id, until: (view) => view.state === "done" });
    const child = done.trials.find((trial) => trial.parentTrialId === parent?.id);
    expect(child?.state).toBe("succeeded");
    const notes = Buffer.from("notes.txt").toString("base64url");
    const file = await web.services.review.file({ trialId: child?.id ?? "", pathKey: notes });
    expect(file.after.text).toMatch(/^first task\nA reviewer read the changes .*\n\n- second task\n$/s);
    const againstParent = await web.services.review.file({
      trialId: child?.id ?? "",
      pathKey: notes,
      against: "parent",
    });
    expect(againstParent.before.text).toBe("first task\n");
  });
});
