import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import type { StudyView } from "../src/shared/study-schemas";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  removeImages,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";

/**
 * More repeats of a study that ran (studies.addRepeats, issue 26 point 2) on the real stack: the new trials
 * join the same study, run from its frozen snapshot and image (their manifests say so), and the aggregates
 * grow; refused during a refused study, past the 200-trial cap and for bad input, with nothing written.
 */
const runtime = createDockerRuntime();

let redis: PrivateRedis | undefined;
let stack: StudyStack | undefined;
let web: StudyWeb;
let projectId: string;

beforeAll(async () => {
  // a Redis of its own: the shared one's databases are all taken by other test files
  redis = await startPrivateRedis({ dataDir: tempDir("repeats-redis") });
  stack = await startStudyStack({ name: "repeats", redisUrl: redis.url, runtime, scripts: {}, concurrency: 2 });
  ({ web } = stack);
  projectId = await addCalendarProject({ web, runtime, projectDir: calendarProject() });
}, 300_000);

afterAll(async () => {
  await stack?.close();
  await redis?.stop();
  if (projectId) removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const base = (title: string) => ({
  projectId,
  title,
  taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
  testCommand: "node --test",
  testFiles: [{ source: "project" as const, path: "test/calendar.test.js" }],
});
const codex = (model: string) => ({ harness: "codex" as const, model, reasoningEffort: "low" as const, repeats: 1 });
const finished = (study: StudyView) => study.state === "done" || study.state === "stopped" || study.state === "refused";

describe("more repeats of a study", () => {
  it("adds trials of every configuration to the same study, run on its frozen snapshot and image", async () => {
    const created = await web.services.studies.create(
      { ...base("Repeats"), configurations: [codex("calendar-fix-all"), codex("calendar-fix-none")] },
      "admin",
    );
    const first = await waitForStudy({ web, studyId: created.id, until: finished, what: "the first trials" });
    expect(first.state).toBe("done");
    const before = new Set(first.trials.map((trial) => trial.id));

    const after = await web.services.studies.addRepeats({ studyId: created.id, repeats: 2 }, "admin");
    expect(after.state).toBe("running");
    expect(after.finishedAt).toBeNull();
    expect(after.trials).toHaveLength(6);
    expect(after.configurations.map((configuration) => configuration.repeats)).toEqual([3, 3]);
    const added = after.trials.filter((trial) => !before.has(trial.id));
    expect(added.map((trial) => [trial.choice, trial.repeat]).sort()).toEqual([
      [1, 2],
      [1, 3],
      [2, 2],
      [2, 3],
    ]);

    const done = await waitForStudy({ web, studyId: created.id, until: finished, what: "the added repeats" });
    expect(done.state).toBe("done");
    for (const trial of done.trials) {
      expect(trial.state).toBe("succeeded");
      // the same frozen parts as the first trials
      expect(trial.manifest?.snapshot.id).toBe(first.snapshotId);
      expect(trial.manifest?.environment.imageId).toBe(first.environment.imageId);
    }
    const passed = (choice: number) =>
      done.trials.filter((trial) => trial.choice === choice).map((trial) => trial.verdict?.passed);
    expect(passed(1)).toEqual([23, 23, 23]);
    expect(passed(2)).toEqual([0, 0, 0]);
  }, 400_000);

  it("refuses a refused study, bad input and more than 200 trials, writing nothing", async () => {
    const refused = await web.services.studies.create(
      { ...base("Refused"), testCommand: "no-such-test-runner --all", configurations: [codex("calendar-fix-all")] },
      "admin",
    );
    await waitForStudy({ web, studyId: refused.id, until: finished, what: "the refusal" });
    await expect(web.services.studies.addRepeats({ studyId: refused.id, repeats: 1 }, "admin")).rejects.toThrow(
      /preflight refused this study/,
    );
    const [done] = (await web.services.studies.list({ projectId })).filter((study) => study.title === "Repeats");
    const id = done?.id ?? "";
    await expect(web.services.studies.addRepeats({ studyId: id, repeats: 0 }, "admin")).rejects.toThrow(
      /Add at least 1 repeat/,
    );
    await expect(web.services.studies.addRepeats({ studyId: id, repeats: 2.5 }, "admin")).rejects.toThrow(
      /whole number/,
    );
    // 6 trials and 2 configurations: at most 97 more each; 20 at a time is the input's cap, so fill it first
    for (let i = 0; i < 4; i += 1) await web.services.studies.addRepeats({ studyId: id, repeats: 20 }, "admin");
    await web.services.studies.stop(id, "admin");
    const stopped = await waitForStudy({ web, studyId: id, until: finished, what: "the stop" });
    expect(stopped.trials).toHaveLength(166);
    await expect(web.services.studies.addRepeats({ studyId: id, repeats: 20 }, "admin")).rejects.toThrow(
      /That makes 206 trials; a study has at most 200\. Add at most 17 repeats\./,
    );
    expect((await web.services.studies.get(id)).trials).toHaveLength(166);
    await expect(web.services.studies.addRepeats({ studyId: "no-such-study", repeats: 1 }, "admin")).rejects.toThrow(
      /No study with id/,
    );
  }, 300_000);
});
