import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startWorker, type RunningWorker } from "../worker/main";
import { startMockModel, type MockModelServer } from "../src/server/core/mock-model/mock-model-server";
import { studyReportSchema } from "../src/shared/study-report";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import { isAppError } from "../src/server/core/errors/app-error";
import {
  addCalendarProject,
  calendarProject,
  connectRedis,
  createDockerRuntime,
  FAKE_KEY,
  openStudyWeb,
  redisUrlFor,
  removeImages,
  scriptsDir,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";

/**
 * Review comments sent back to the agent (issue 28.3) end to end: the web side, an in-process worker, the
 * real Codex binary through the model gateway to the mock model. Trials of `calendar-feedback` end their
 * first turn at 13/23; a follow-up resumes the conversation with the comments as the prompt, and the mock,
 * which counts the earlier turn's outputs in the request, goes on to fix the four functions the comment names.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 36);
const runtime = createDockerRuntime();
const COMMENT = 'weekday, daysBetween, isoWeek and formatRange still throw "not implemented": implement them.';
const FEEDBACK = "Keep the four functions you already wrote as they are.";
interface SeenRequest {
  api: string;
  model: string;
  stepIndex: number;
  body: unknown;
}
let dataDir: string;
let mock: MockModelServer;
const seen: SeenRequest[] = [];
let web: StudyWeb;
let worker: RunningWorker;
let projectId: string;

beforeAll(async () => {
  const redis = connectRedis({ url: REDIS_URL, name: "review-feedback-test" });
  await redis.flushdb();
  redis.disconnect();
  dataDir = tempDir("review-feedback-data");
  mock = await startMockModel({
    scriptsDir: scriptsDir(),
    apiKey: FAKE_KEY,
    onRequest: (request) =>
      seen.push({ api: request.api, model: request.model, stepIndex: request.stepIndex, body: request.body }),
  });
  web = await openStudyWeb({ dataDir, redisUrl: REDIS_URL, runtime });
  worker = await startWorker({
    redisUrl: REDIS_URL,
    dataDir,
    concurrency: 3,
    version: "test",
    modelGateway: {
      openaiApiKey: FAKE_KEY,
      anthropicApiKey: FAKE_KEY,
      googleApiKey: FAKE_KEY,
      codexHome: tempDir("host-codex"),
      upstreamBaseUrl: mock.url,
      anthropicBaseUrl: mock.rootUrl,
      googleBaseUrl: mock.rootUrl,
    },
    log: () => undefined,
  });
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await worker.stop("test finished");
  await web.close();
  await mock.close();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const finished = (study: StudyView) => study.state === "done" || study.state === "stopped";
const trialCount = async (studyId: string) => web.db.trial.count({ where: { studyId } });

async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  const error = await call.then(
    () => null,
    (caught: unknown) => caught,
  );
  if (!isAppError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
  return { code: error.code, message: error.message };
}

/** The text of every item of a Responses request's input (messages and tool outputs), in order. */
function inputTexts(body: unknown): string[] {
  const input = (body as { input?: unknown[] }).input ?? [];
  return input.map((item) => JSON.stringify(item));
}

describe("continue with feedback on the calendar fixture", () => {
  let study: StudyView;
  let first: TrialView;
  let second: TrialView;
  let none: TrialView;
  let children: TrialView[] = [];

  it("runs the first attempts: calendar-feedback ends its first turn at 13/23", async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Feedback",
        taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        concurrency: 3,
        configurations: [
          { harness: "codex", model: "calendar-feedback", reasoningEffort: "low", repeats: 2 },
          { harness: "codex", model: "calendar-fix-none", reasoningEffort: "low", repeats: 1 },
        ],
      },
      "admin",
    );
    study = await waitForStudy({ web, studyId: created.id, until: finished, timeoutMs: 170_000 });
    expect(study.state).toBe("done");
    [first, second, none] = study.trials as [TrialView, TrialView, TrialView];
    expect(study.trials.map((trial) => `${trial.number} ${trial.verdict?.passed}/${trial.verdict?.total}`)).toEqual([
      "1.1 13/23",
      "1.2 13/23",
      "2.1 0/23",
    ]);
    expect(first.threadId).toBeTruthy();
  });

  it("keeps comments on a range, refuses paths outside the trial's files", async () => {
    const comment = await web.services.review.addComment(
      { trialId: first.id, path: "src/calendar.js", startLine: 29, endLine: 31, body: `  ${COMMENT}  ` },
      "admin",
    );
    expect(comment).toMatchObject({ path: "src/calendar.js", startLine: 29, endLine: 31, body: COMMENT });
    expect(comment.sentInTrial).toBeNull();
    const unknown = await refusal(
      web.services.review.addComment({ trialId: first.id, path: "src/nope.js", body: "x" }, "admin"),
    );
    expect(unknown).toMatchObject({ code: "BAD_REQUEST" });
    expect(unknown.message).toContain("src/nope.js");
    const pastEnd = await refusal(
      web.services.review.addComment(
        { trialId: first.id, path: "src/calendar.js", startLine: 9000, body: "x" },
        "admin",
      ),
    );
    expect(pastEnd).toMatchObject({ code: "BAD_REQUEST" });
    expect(pastEnd.message).toContain("past its end");
    expect((await web.services.review.comments({ trialId: first.id })).comments).toHaveLength(1);
  });

  it("refuses a trial without feedback and one whose result image was removed, queueing nothing", async () => {
    const before = await trialCount(study.id);
    const noFeedback = await refusal(
      web.services.studies.continueWithFeedback({ studyId: study.id, trialIds: [second.id] }, "admin"),
    );
    expect(noFeedback.code).toBe("PRECONDITION_FAILED");
    expect(noFeedback.message).toContain("Trial 1.2");
    spawnSync("docker", ["rmi", "-f", none.committedImageId ?? ""], { stdio: "ignore" });
    const gone = await refusal(
      web.services.studies.continueWithFeedback(
        { studyId: study.id, trialIds: [first.id, none.id], feedback: FEEDBACK },
        "admin",
      ),
    );
    expect(gone.code).toBe("PRECONDITION_FAILED");
    expect(gone.message).toContain("Trial 2.1");
    expect(gone.message).toContain("no longer in Docker");
    // all or nothing: no trial, and the first trial's comment is still unsent
    expect(await trialCount(study.id)).toBe(before);
    const comments = (await web.services.review.comments({ trialId: first.id })).comments;
    expect(comments.map((comment) => comment.sentInTrial)).toEqual([null]);
    expect((await web.services.studies.get(study.id)).state).toBe("done");
  });

  it("sends the same feedback to two trials in one call; an unfinished follow-up cannot be continued", async () => {
    const result = await web.services.studies.continueWithFeedback(
      { studyId: study.id, trialIds: [first.id, second.id], feedback: FEEDBACK },
      "admin",
    );
    expect(result.trials.map((trial) => trial.parentTrialId)).toEqual([first.id, second.id]);
    const unfinished = await refusal(
      web.services.studies.continueWithFeedback(
        { studyId: study.id, trialIds: [result.trials[0]?.id ?? ""], feedback: "more" },
        "admin",
      ),
    );
    expect(unfinished.code).toBe("PRECONDITION_FAILED");
    expect(unfinished.message).toContain("Trial 1.1.1");
    study = await waitForStudy({ web, studyId: study.id, until: finished, timeoutMs: 170_000 });
    children = study.trials.filter((trial) => trial.parentTrialId !== null);
    // each follow-up is listed right under its parent, and is no new repeat
    expect(study.trials.map((trial) => trial.number)).toEqual(["1.1", "1.1.1", "1.2", "1.2.1", "2.1"]);
    expect(children.map((trial) => `${trial.state} ${trial.verdict?.passed}/${trial.verdict?.total}`)).toEqual([
      "succeeded 23/23",
      "succeeded 23/23",
    ]);
    const [childA, childB] = children as [TrialView, TrialView];
    expect(childA.feedback).toContain(`- src/calendar.js:29-31 — ${COMMENT}`);
    expect(childA.feedback).toContain(`- ${FEEDBACK}`);
    expect(childB.feedback).toContain(`- ${FEEDBACK}`);
    expect(childB.feedback).not.toContain("src/calendar.js:29-31");
    // its manifest says what it continued: the parent, the parent's result image, and the feedback
    expect(childA.manifest?.followUp).toEqual({
      parentTrialId: first.id,
      agentImage: first.committedImageId,
      prompt: childA.feedback,
    });
    expect(childA.manifest?.taskPrompt).toBe(first.manifest?.taskPrompt);
    // every comment it carried is marked sent in it, and stays
    const sent = (await web.services.review.comments({ trialId: first.id })).comments;
    expect(sent.map((comment) => [comment.body, comment.sentInTrial])).toEqual([
      [COMMENT, childA.id],
      [FEEDBACK, childA.id],
    ]);
    expect(await refusal(web.services.review.removeComment({ commentId: sent[0]?.id ?? "" }))).toMatchObject({
      code: "CONFLICT",
    });
  });

  it("resumed the agent's conversation: the mock received the first turn with the feedback", () => {
    const [childA] = children as [TrialView];
    const followUpRequests = seen.filter((request) =>
      inputTexts(request.body).some((text) => text.includes("src/calendar.js:29-31")),
    );
    expect(followUpRequests.length).toBeGreaterThanOrEqual(2);
    const firstOfTurn = followUpRequests[0] as SeenRequest;
    // the earlier turn's two tool outputs and its reply came with it, so the script went on at step 4
    expect(firstOfTurn.stepIndex).toBe(3);
    const texts = inputTexts(firstOfTurn.body);
    expect(texts.some((text) => text.includes("I implemented isLeapYear, daysInMonth, dayOfYear and addDays"))).toBe(
      true,
    );
    expect(texts.some((text) => text.includes("Implement every function in src/calendar.js"))).toBe(true);
    expect(childA.threadId).toBe(first.threadId);
  });

  it("shows a follow-up's changes against its parent and against the snapshot; the parent stays as it was", async () => {
    const [childA] = children as [TrialView];
    const againstParent = await web.services.review.files({ trialId: childA.id, against: "parent", opened: true });
    expect(againstParent.items.map((item) => item.path)).toEqual(["src/calendar.js"]);
    expect(againstParent.opened?.before.text).toContain("export function isLeapYear(year) {\n  return");
    expect(againstParent.opened?.before.text).toContain('throw new Error("not implemented")');
    expect(againstParent.opened?.after.text).not.toContain('throw new Error("not implemented")');
    const againstSnapshot = await web.services.review.files({ trialId: childA.id });
    expect(againstSnapshot.items.map((item) => item.path)).toContain("src/calendar.js");
    expect(againstSnapshot.items.find((item) => item.path === "src/calendar.js")?.insertions).toBeGreaterThan(
      againstParent.items[0]?.insertions ?? 0,
    );
    const parentFile = await web.services.review.files({ trialId: first.id, opened: true });
    expect(parentFile.opened?.after.text).toContain('throw new Error("not implemented")');
    const summary = await web.services.review.summary({ trialId: first.id });
    expect(summary.followUps).toEqual([
      {
        id: childA.id,
        name: "Trial 1.1.1",
        state: "succeeded",
        verdict: expect.objectContaining({ passed: 23 }) as unknown,
      },
    ]);
    expect((await web.services.review.summary({ trialId: childA.id })).parent).toEqual({
      id: first.id,
      name: "Trial 1.1",
    });
    expect(await refusal(web.services.review.files({ trialId: first.id, against: "parent" }))).toMatchObject({
      code: "BAD_REQUEST",
    });
  });

  it("leaves follow-ups out of the statistics; the report shows parent → child and the comments", async () => {
    const json = studyReportSchema.parse(
      JSON.parse((await web.services.studies.report({ studyId: study.id, format: "json" })).body),
    );
    const aggregate = json.aggregates.find((entry) => entry.choice === 1);
    // the tests × trials matrix compares repeats: the follow-ups are not columns of it
    expect(json.testMatrix?.trials.map((trial) => trial.id)).toEqual([first.id, second.id, none.id]);
    expect(aggregate).toMatchObject({ trials: 2, finished: 2, passedAll: 0 });
    const [childA] = children as [TrialView];
    const reported = json.trials.find((trial) => trial.id === childA.id);
    expect(reported).toMatchObject({ parentTrialId: first.id, number: "1.1.1" });
    expect(reported?.feedback).toContain(COMMENT);
    const parent = json.trials.find((trial) => trial.id === first.id);
    expect(parent?.comments?.map((comment) => comment.body)).toEqual([COMMENT, FEEDBACK]);
    const md = (await web.services.studies.report({ studyId: study.id, format: "md" })).body;
    expect(md).toContain("Trial 1.1 → Trial 1.1.1");
    expect(md).toContain(`src/calendar.js:29-31 — ${COMMENT}`);
    const csv = (await web.services.studies.report({ studyId: study.id, format: "csv" })).body;
    expect(csv.split("\n")[0]).toContain("parent_trial_id");
  });
});

describe.each([
  { harness: "claude-code" as const, agent: "Claude Code", api: "anthropic" },
  { harness: "gemini-cli" as const, agent: "Gemini CLI", api: "gemini" },
])("a $agent follow-up", ({ harness, agent, api }) => {
  it(`resumes the real ${agent} session (--resume) with the feedback and raises the verdict`, async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: `${agent} feedback`,
        taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        concurrency: 1,
        configurations: [{ harness, model: "calendar-feedback", reasoningEffort: "low", repeats: 1 }],
      },
      "admin",
    );
    let claude = await waitForStudy({ web, studyId: created.id, until: finished, timeoutMs: 200_000 });
    const [parent] = claude.trials as [TrialView];
    expect(`${parent.verdict?.passed}/${parent.verdict?.total}`).toBe("13/23");
    expect(parent.threadId).toMatch(/^[0-9a-f-]{36}$/);
    await web.services.review.addComment({ trialId: parent.id, body: COMMENT }, "admin");
    await web.services.studies.continueWithFeedback({ studyId: claude.id, trialIds: [parent.id] }, "admin");
    claude = await waitForStudy({ web, studyId: created.id, until: finished, timeoutMs: 200_000 });
    const child = claude.trials.find((trial) => trial.parentTrialId === parent.id);
    expect(child?.number).toBe("1.1.1");
    expect(`${child?.state} ${child?.verdict?.passed}/${child?.verdict?.total}`).toBe("succeeded 23/23");
    expect(child?.feedback).toBe(
      `A reviewer read the changes you made in /workspace and left this feedback. Address each point, keep the rest of your work, and run the tests again.\n\n- ${COMMENT}`,
    );
    // the follow-up's first request carried the earlier session: its tool calls and reply, then the feedback
    const resumed = seen.find(
      (request) => request.api === api && JSON.stringify(request.body).includes(COMMENT.slice(0, 40)),
    );
    expect(resumed?.stepIndex).toBe(3);
    expect(JSON.stringify(resumed?.body)).toContain("I implemented isLeapYear, daysInMonth, dayOfYear and addDays");
  });
});
