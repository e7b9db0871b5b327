import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { imagesWithLabel, labelledImage, removeImageQuietly } from "../../../../test/support/labelled-image";
import { createRemovalJournal, type Removal } from "./removal-journal";

function setup() {
  const dataDir = tempDir("removal");
  const logged: string[] = [];
  const journal = createRemovalJournal({ dataDir, runtime: createDockerRuntime(), log: (line) => logged.push(line) });
  const file = (relative: string, text = "x") => {
    fs.mkdirSync(path.dirname(path.join(dataDir, relative)), { recursive: true });
    fs.writeFileSync(path.join(dataDir, relative), text);
  };
  const exists = (relative: string) => fs.existsSync(path.join(dataDir, relative));
  const removal: Removal = {
    owner: { kind: "study", id: "s1" },
    projectId: "p1",
    imageIds: [],
    workspaceIds: [],
    paths: ["trials/t1", "studies/s1"],
  };
  return { dataDir, logged, journal, file, exists, removal };
}

describe("the removal journal", () => {
  it("removes the files once the rows are deleted, and leaves no journal", async () => {
    const { journal, file, exists, removal } = setup();
    file("trials/t1/attempt-1/trial.log");
    file("studies/s1/test-files/abc");
    file("trials/t2/attempt-1/trial.log"); // another trial's
    let deleted = false;
    expect(await journal.remove(removal, () => Promise.resolve(void (deleted = true)))).toEqual([]);
    expect(deleted).toBe(true);
    expect([
      exists("trials/t1"),
      exists("studies/s1"),
      exists("trials/t2/attempt-1/trial.log"),
      exists("deletions/study-s1.json"),
    ]).toEqual([false, false, true, false]);
  });

  it("touches nothing when the rows could not be deleted, and drops its journal", async () => {
    const { journal, file, exists, removal } = setup();
    file("trials/t1/attempt-1/trial.log");
    await expect(journal.remove(removal, () => Promise.reject(new Error("database is locked")))).rejects.toThrow(
      "database is locked",
    );
    expect([exists("trials/t1/attempt-1/trial.log"), exists("deletions/study-s1.json")]).toEqual([true, false]);
  });

  it("never follows a path out of the data dir", async () => {
    const { dataDir, journal, exists, removal } = setup();
    const outside = tempDir("outside");
    fs.writeFileSync(path.join(outside, "keep.txt"), "keep");
    const escape = path.relative(dataDir, outside);
    expect(escape.startsWith("..")).toBe(true);
    await journal.remove({ ...removal, paths: [escape, outside, "trials/../../x"] }, () => Promise.resolve());
    expect(fs.readFileSync(path.join(outside, "keep.txt"), "utf8")).toBe("keep");
    expect(exists("deletions/study-s1.json")).toBe(false);
  });

  it("at the next start, finishes a removal whose rows are gone and forgets one whose rows are still there", async () => {
    const { journal, file, exists, logged } = setup();
    // as a crash right after the transaction leaves it: the journal, and the files still there
    file("trials/t1/attempt-1/trial.log");
    file("snapshots/abc/manifest.json");
    file(
      "deletions/study-gone.json",
      JSON.stringify({
        owner: { kind: "study", id: "gone" },
        projectId: "p1",
        imageIds: [],
        workspaceIds: [],
        paths: ["trials/t1"],
      }),
    );
    // as a crash before the transaction leaves it: the rows are still there, so nothing may be removed
    file(
      "deletions/project-kept.json",
      JSON.stringify({
        owner: { kind: "project", id: "kept" },
        projectId: "kept",
        imageIds: [],
        workspaceIds: [],
        paths: ["snapshots/abc"],
      }),
    );
    file("deletions/study-garbled.json", "{not json");
    await journal.resume((owner) => Promise.resolve(owner.id === "kept"));
    expect([exists("trials/t1"), exists("deletions/study-gone.json")]).toEqual([false, false]);
    expect([exists("snapshots/abc/manifest.json"), exists("deletions/project-kept.json")]).toEqual([true, false]);
    expect(exists("deletions/study-garbled.json")).toBe(true);
    expect(logged).toEqual([expect.stringContaining("unreadable deletion journal study-garbled.json")]);
  });

  it("removes the owner's images found by label at removal time, children first, never another project's", async () => {
    const { journal, removal } = setup();
    const study = `s-${Date.now()}`;
    const project = `p-${Date.now()}`;
    const labels = { "invariant.managed": "true", "invariant.project": project };
    const environmentImage = labelledImage({ ...labels, "invariant.environment": `v-${study}` });
    // an attempt whose commit was never recorded: only its labels say whose it is
    const trialImage = labelledImage(
      { ...labels, "invariant.study": study, "invariant.run": `t-${study}-1` },
      environmentImage,
    );
    // an image built on the environment's that no row names (a version whose build was never recorded)
    const child = labelledImage(
      { ...labels, "invariant.environment": `v2-${study}`, "invariant.run": "" }, // ownership labels set empty
      environmentImage,
    );
    const foreign = labelledImage({ ...labels, "invariant.project": "someone-else", "invariant.study": study });
    try {
      const leftovers = await journal.remove(
        {
          ...removal,
          owner: { kind: "study", id: study },
          projectId: project,
          imageLabels: { "invariant.study": study },
        },
        () => Promise.resolve(),
      );
      expect(leftovers).toEqual([]);
      expect(imagesWithLabel(`invariant.study=${study}`)).toEqual([foreign]);
      expect(imagesWithLabel(`invariant.project=${project}`).sort()).toEqual([environmentImage, child].sort());
      // the project's removal finds the image built on its environment's by label, and removes it first
      const projectLeftovers = await journal.remove(
        {
          ...removal,
          owner: { kind: "project", id: project },
          projectId: project,
          imageIds: [environmentImage],
          imageLabels: { "invariant.project": project },
        },
        () => Promise.resolve(),
      );
      expect(projectLeftovers).toEqual([]);
      expect(imagesWithLabel(`invariant.project=${project}`)).toEqual([]);
    } finally {
      for (const id of [child, trialImage, foreign, environmentImage]) removeImageQuietly(id);
    }
  });
});
