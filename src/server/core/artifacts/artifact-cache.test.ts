import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { dataDirPaths } from "../storage/data-dir";
import { pruneArtifactCache, touchCacheEntry } from "./artifact-cache";

const DAY = 24 * 60 * 60 * 1000;
const NOW = new Date("2026-12-02T12:00:00Z");
const daysAgo = (days: number) => new Date(NOW.getTime() - days * DAY);
const snapshotId = (digit: string) => digit.repeat(64);

/** A cached snapshot (its manifest and pack) last used `days` ago. */
function cachedSnapshot(dataDir: string, id: string, days: number): string {
  const snapshot = dataDirPaths(dataDir).snapshot(id);
  fs.mkdirSync(snapshot.packDir, { recursive: true });
  fs.writeFileSync(snapshot.manifest, JSON.stringify({ id }));
  fs.writeFileSync(snapshot.pack("pack-1"), "pack bytes");
  fs.utimesSync(snapshot.dir, daysAgo(days), daysAgo(days));
  return snapshot.dir;
}

/** A study's cached test file, its folder last used `days` ago. */
function cachedTestFiles(dataDir: string, studyId: string, days: number): string {
  const dir = dataDirPaths(dataDir).testFiles(studyId);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "a".repeat(64)), "test file");
  fs.utimesSync(dir, daysAgo(days), daysAgo(days));
  return dir;
}

describe("the artifact cache of a worker on another host", () => {
  it("removes snapshots and test files no job used for the given days, and keeps the rest", async () => {
    const dataDir = tempDir("artifact-cache");
    const unused = cachedSnapshot(dataDir, snapshotId("a"), 30);
    const underWorkspace = cachedSnapshot(dataDir, snapshotId("b"), 30);
    const recent = cachedSnapshot(dataDir, snapshotId("c"), 2);
    const touched = cachedSnapshot(dataDir, snapshotId("d"), 30);
    await touchCacheEntry(touched, daysAgo(1)); // a job used it yesterday
    // a workspace left here (an interrupted trial's) is made from snapshot b: its tree must stay
    const workspace = dataDirPaths(dataDir).workspace(`ws-${"e".repeat(24)}`);
    fs.mkdirSync(workspace.dir, { recursive: true });
    fs.writeFileSync(workspace.meta, JSON.stringify({ snapshotId: snapshotId("b") }));
    const oldTests = cachedTestFiles(dataDir, "study-old", 10);
    const newTests = cachedTestFiles(dataDir, "study-new", 1);
    fs.writeFileSync(path.join(dataDirPaths(dataDir).study("study-new"), "other.json"), "{}");

    const pruned = await pruneArtifactCache({ dataDir, maxAgeDays: 7, now: NOW });

    expect(pruned).toEqual({ snapshots: [snapshotId("a")], studies: ["study-old"] });
    expect(fs.existsSync(unused)).toBe(false);
    expect(fs.existsSync(oldTests)).toBe(false);
    expect(fs.existsSync(dataDirPaths(dataDir).study("study-old"))).toBe(false); // nothing else was in it
    for (const kept of [underWorkspace, recent, touched])
      expect(fs.existsSync(path.join(kept, "manifest.json"))).toBe(true);
    expect(fs.readdirSync(newTests)).toEqual(["a".repeat(64)]);
  });

  it("finds nothing to do in a data dir without a cache, and keeps a study folder that holds more than test files", async () => {
    const empty = tempDir("artifact-cache-empty");
    expect(await pruneArtifactCache({ dataDir: empty, maxAgeDays: 7, now: NOW })).toEqual({
      snapshots: [],
      studies: [],
    });
    const dataDir = tempDir("artifact-cache-more");
    cachedTestFiles(dataDir, "study-1", 30);
    fs.writeFileSync(path.join(dataDirPaths(dataDir).study("study-1"), "keep.txt"), "not the cache's");
    expect(await pruneArtifactCache({ dataDir, maxAgeDays: 7, now: NOW })).toEqual({
      snapshots: [],
      studies: ["study-1"],
    });
    expect(fs.readdirSync(dataDirPaths(dataDir).study("study-1"))).toEqual(["keep.txt"]);
  });
});
