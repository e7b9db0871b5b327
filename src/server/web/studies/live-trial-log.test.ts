import fs from "node:fs";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import type { InvariantEvent } from "../../../shared/event-catalog";
import { dataDirPaths } from "../../core/storage/data-dir";
import { attemptLogFile, recordLiveTrialLog } from "./live-trial-log";
import type { TrialLocation } from "./study-read.queries";

const chunk = (text: string, o: { trialId?: string; attempt?: number; workerId?: string } = {}): InvariantEvent => ({
  v: 1,
  at: new Date().toISOString(),
  type: "trial.log",
  studyId: "s1",
  trialId: o.trialId ?? "t1",
  workerId: o.workerId ?? "far-1",
  data: { attempt: o.attempt ?? 1, text },
});

function setup(location: Partial<TrialLocation> | null, maxBytes?: number) {
  const dataDir = tempDir("live-log");
  const row = location && {
    studyId: "s1",
    attempt: 1,
    projectId: "p1",
    state: "agent",
    workerId: "far-1",
    ...location,
  };
  const deps = { dataDir, studies: { trialLocation: () => Promise.resolve(row) }, ...(maxBytes ? { maxBytes } : {}) };
  const files = dataDirPaths(dataDir).trialAttempt({ trialId: "t1", attempt: 1 });
  const live = () => (fs.existsSync(files.liveLog) ? fs.readFileSync(files.liveLog, "utf8") : null);
  return { deps, files, live };
}

describe("a remote trial's live log in the dashboard's data dir", () => {
  it("appends chunks the first time they are recorded, and is the log until the worker's own arrives", async () => {
    const { deps, files, live } = setup({});
    await recordLiveTrialLog(deps, { event: chunk("one\n"), firstTime: true });
    await recordLiveTrialLog(deps, { event: chunk("one\n"), firstTime: false }); // a replayed entry
    await recordLiveTrialLog(deps, { event: chunk("two\n"), firstTime: true });
    expect(live()).toBe("one\ntwo\n");
    expect(await attemptLogFile({ dataDir: deps.dataDir, trialId: "t1", attempt: 1 })).toBe(files.liveLog);
    // the delivered results put the worker's whole log there: late chunks are left out, the copy goes at the finish
    fs.writeFileSync(files.log, "one\ntwo\nthree\n");
    await recordLiveTrialLog(deps, { event: chunk("three\n"), firstTime: true });
    expect(live()).toBe("one\ntwo\n");
    expect(await attemptLogFile({ dataDir: deps.dataDir, trialId: "t1", attempt: 1 })).toBe(files.log);
    const finished = { ...chunk(""), type: "trial.finished", data: { attempt: 1 } } as unknown as InvariantEvent;
    await recordLiveTrialLog(deps, { event: finished, firstTime: true });
    expect(live()).toBeNull();
    expect(fs.readFileSync(files.log, "utf8")).toBe("one\ntwo\nthree\n");
  });

  it("writes nothing for a trial whose worker shares this data dir (its trial.log is there from the start)", async () => {
    const { deps, files, live } = setup({});
    fs.mkdirSync(files.dir, { recursive: true });
    fs.writeFileSync(files.log, "local\n");
    await recordLiveTrialLog(deps, { event: chunk("local\n"), firstTime: true });
    expect(live()).toBeNull();
    expect(fs.readFileSync(files.log, "utf8")).toBe("local\n");
  });

  it("writes only for the trial's current attempt while it runs, on its worker, under a real trial id", async () => {
    for (const [location, event] of [
      [null, chunk("unknown trial\n")],
      [{ attempt: 2 }, chunk("an older attempt\n")],
      [{ state: "succeeded" }, chunk("after the end\n")],
      [{ workerId: "another" }, chunk("another worker\n")],
      [{}, chunk("a path\n", { trialId: "../../etc" })],
    ] as const) {
      const { deps, live } = setup(location);
      await recordLiveTrialLog(deps, { event, firstTime: true });
      expect(live(), JSON.stringify(location)).toBeNull();
      expect(fs.readdirSync(deps.dataDir)).toEqual([]);
    }
  });

  it("is bounded like a worker's log: a marker, then nothing more", async () => {
    const { deps, live } = setup({}, 10);
    await recordLiveTrialLog(deps, { event: chunk("12345678"), firstTime: true });
    await recordLiveTrialLog(deps, { event: chunk("abcdef"), firstTime: true });
    await recordLiveTrialLog(deps, { event: chunk("more"), firstTime: true });
    expect(live()).toMatch(/^12345678ab\n\[invariant-web: the live copy of this log reached its limit/);
    expect(live()).not.toContain("more");
  });
});
