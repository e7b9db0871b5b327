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

/** Fetched installed dependencies (a tree with one file), last used `days` ago. */
function cachedDependencies(dataDir: string, digit: string, days: number): string {
  const folder = dataDirPaths(dataDir).dependencyDir(`deps-${digit.repeat(24)}`);
  fs.mkdirSync(path.join(folder.tree, "node_modules", "a"), { recursive: true });
  fs.writeFileSync(path.join(folder.tree, "node_modules", "a", "index.js"), "module.exports = 1;\n");
  fs.utimesSync(folder.dir, daysAgo(days), daysAgo(days));
  return folder.dir;
}

describe("the artifact cache of a worker on another host", () => {
  it("removes snapshots, test files and installed dependencies no job used for the given days, and keeps the rest", async () => {
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
    const oldDependencies = cachedDependencies(dataDir, "a", 9);
    const usedDependencies = cachedDependencies(dataDir, "b", 9);
    await touchCacheEntry(usedDependencies, daysAgo(3)); // a trial mounted them three days ago
    const dependencies = dataDirPaths(dataDir).dependencies;
    // an old download left unfinished goes; a recent one stays (the next fetch resumes it); scratch stays
    const stalePart = path.join(dependencies, `.fetch-${"1".repeat(64)}.part`);
    const freshPart = path.join(dependencies, `.fetch-${"2".repeat(64)}.part`);
    fs.writeFileSync(stalePart, "half");
    fs.utimesSync(stalePart, daysAgo(8), daysAgo(8));
    fs.writeFileSync(freshPart, "half");
    fs.mkdirSync(dataDirPaths(dataDir).dependencyScratch, { recursive: true });
    fs.utimesSync(dataDirPaths(dataDir).dependencyScratch, daysAgo(30), daysAgo(30));

    const pruned = await pruneArtifactCache({ dataDir, maxAgeDays: 7, now: NOW });

    expect(pruned).toEqual({
      snapshots: [snapshotId("a")],
      studies: ["study-old"],
      dependencies: [`deps-${"a".repeat(24)}`],
    });
    expect(fs.existsSync(oldDependencies)).toBe(false);
    expect(fs.existsSync(stalePart)).toBe(false);
    for (const kept of [usedDependencies, freshPart, dataDirPaths(dataDir).dependencyScratch])
      expect(fs.existsSync(kept)).toBe(true);
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
      dependencies: [],
    });
    const dataDir = tempDir("artifact-cache-more");
    cachedTestFiles(dataDir, "study-1", 30);
    fs.writeFileSync(path.join(dataDirPaths(dataDir).study("study-1"), "keep.txt"), "not the cache's");
    expect(await pruneArtifactCache({ dataDir, maxAgeDays: 7, now: NOW })).toEqual({
      snapshots: [],
      studies: ["study-1"],
      dependencies: [],
    });
    expect(fs.readdirSync(dataDirPaths(dataDir).study("study-1"))).toEqual(["keep.txt"]);
  });
});
