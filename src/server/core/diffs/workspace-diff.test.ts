import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { mkfifo, p, symlink, utf8, write } from "../../../../test/support/file-trees";
import { expectNoStall, timerGaps } from "../../../../test/support/stall-budget";
import { tempDir } from "../../../../test/support/temp";
import type { Manifest } from "../snapshots/manifest";
import { createSnapshot } from "../snapshots/snapshot-store";
import { createWorkspace } from "../workspaces/workspace-store";
import { DEFAULT_DIFF_CAPS, diffWorkspace, type FileChange } from "./workspace-diff";

const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const NON_UTF8 = "caf\xe9.txt";
let dataDir: string;
let manifest: Manifest;

beforeAll(async () => {
  const project = tempDir("diff-project");
  write(project, "src/app.ts", "a\nb\nc\n");
  write(project, "src/gone.ts", "bye\n");
  write(project, "run.sh", "#!/bin/sh\n");
  write(project, "same-size.txt", "AAAA\n");
  write(project, "image.bin", Buffer.from([0, 1, 2, 3]));
  write(project, NON_UTF8, "latin1\n");
  write(project, "tracked.log", "tracked before the ignore rule\n");
  symlink(project, "link", "src/app.ts");
  symlink(project, "becomes-file", "src/app.ts");
  write(project, "becomes-link", "file\n");
  dataDir = tempDir("diff-data");
  ({ manifest } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir }));
});

async function freshWorkspace() {
  return (await createWorkspace({ dataDir, snapshotId: manifest.id })).path;
}

function byPath(changes: FileChange[]): Map<string, FileChange> {
  return new Map(changes.map((change) => [change.path, change]));
}

describe("a workspace diff", () => {
  it("is empty for an untouched workspace (its .git is not a change)", async () => {
    const diff = await diffWorkspace({ dataDir, manifest, workspaceRoot: await freshWorkspace() });
    expect(diff.changes).toEqual([]);
    expect(diff.totals.files).toBe(0);
  });

  it("finds added, modified, deleted, mode, link and type changes, with patches and totals", async () => {
    const ws = await freshWorkspace();
    fs.writeFileSync(path.join(ws, "src/app.ts"), "a\nB\nc\nd\n");
    fs.rmSync(path.join(ws, "src/gone.ts"));
    fs.chmodSync(path.join(ws, "run.sh"), 0o755);
    write(ws, utf8("new dir/new file.txt"), "fresh\n");
    write(ws, "empty-new", "");
    fs.writeFileSync(path.join(ws, "image.bin"), Buffer.from([0, 9, 9, 9, 9, 9]));
    fs.writeFileSync(p(ws, NON_UTF8), "changed\n");
    fs.rmSync(path.join(ws, "link"));
    symlink(ws, "link", "run.sh");
    fs.rmSync(path.join(ws, "becomes-file"));
    write(ws, "becomes-file", "now a file\n");
    fs.rmSync(path.join(ws, "becomes-link"));
    symlink(ws, "becomes-link", "/etc/passwd");

    const diff = await diffWorkspace({ dataDir, manifest, workspaceRoot: ws });
    const changes = byPath(diff.changes);
    expect([...changes.keys()]).toEqual([
      "becomes-file",
      "becomes-link",
      NON_UTF8,
      "empty-new",
      "image.bin",
      "link",
      utf8("new dir/new file.txt"),
      "run.sh",
      "src/app.ts",
      "src/gone.ts",
    ]);
    expect(changes.get("src/app.ts")).toMatchObject({
      status: "modified",
      contentChanged: true,
      insertions: 2,
      deletions: 1,
      patch: expect.stringContaining("-b\n+B\n") as unknown,
    });
    expect(changes.get("src/gone.ts")).toMatchObject({
      status: "deleted",
      after: null,
      patch: expect.stringContaining("deleted file mode 100644") as unknown,
    });
    expect(changes.get("run.sh")).toMatchObject({
      status: "modified",
      modeChanged: true,
      contentChanged: false,
      after: { mode: "100755" },
      patch: "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n",
    });
    expect(changes.get(utf8("new dir/new file.txt"))).toMatchObject({
      status: "added",
      before: null,
      after: { type: "file", sha256: sha("fresh\n"), size: 6 },
    });
    expect(changes.get("empty-new")).toMatchObject({ status: "added", after: { size: 0, sha256: sha("") } });
    expect(changes.get("image.bin")).toMatchObject({
      binary: true,
      before: { size: 4 },
      after: { size: 6 },
      patch: expect.stringContaining("Binary files a/image.bin and b/image.bin differ") as unknown,
    });
    expect(changes.get(NON_UTF8)).toMatchObject({
      status: "modified",
      patch: expect.stringContaining("+changed\n") as unknown,
    });
    expect(changes.get("link")).toMatchObject({
      status: "modified",
      before: { type: "symlink", target: "src/app.ts" },
      after: { type: "symlink", target: "run.sh" },
    });
    expect(changes.get("becomes-file")).toMatchObject({
      typeChanged: true,
      before: { type: "symlink" },
      after: { type: "file" },
    });
    expect(changes.get("becomes-link")).toMatchObject({
      typeChanged: true,
      after: { type: "symlink", target: "/etc/passwd" },
    });
    expect(diff.totals).toMatchObject({ files: 10, added: 2, deleted: 1, modified: 7, binary: 1, modeChanges: 1 });
    expect(diff.truncated).toBe(false);
  });

  it("sees an edit that keeps the size and the mtime (it never trusts mtime)", async () => {
    const ws = await freshWorkspace();
    const file = path.join(ws, "same-size.txt");
    const { atime, mtime } = fs.statSync(file);
    fs.writeFileSync(file, "BBBB\n");
    fs.utimesSync(file, atime, mtime);
    const diff = await diffWorkspace({ dataDir, manifest, workspaceRoot: ws });
    expect(diff.changes.map((change) => change.path)).toEqual(["same-size.txt"]);
  });

  it("ignores what a snapshot would leave out (secrets, caches, .gitignore'd files), but never a tracked file", async () => {
    const ws = await freshWorkspace();
    write(ws, ".env", "TOKEN=stolen");
    write(ws, "node_modules/pkg/index.js", "x");
    write(ws, ".gitignore", "*.log\n");
    write(ws, "debug.log", "noise");
    fs.appendFileSync(path.join(ws, "tracked.log"), "still tracked\n");
    mkfifo(ws, "a-fifo");
    const diff = await diffWorkspace({ dataDir, manifest, workspaceRoot: ws });
    expect(diff.changes.map((change) => change.path)).toEqual([".gitignore", "tracked.log"]);
    expect(diff.skipped).toEqual([{ path: "a-fifo", kind: "fifo" }]);
  });

  it("caps the total patch size and marks what it left out", async () => {
    const ws = await freshWorkspace();
    for (let i = 0; i < 20; i++)
      write(ws, `many/file-${String(i).padStart(2, "0")}.txt`, `${"x".repeat(200)}\n`.repeat(5));
    const diff = await diffWorkspace({
      dataDir,
      manifest,
      workspaceRoot: ws,
      caps: { ...DEFAULT_DIFF_CAPS, maxTotalPatchBytes: 3000 },
    });
    expect(diff.truncated).toBe(true);
    expect(diff.changes).toHaveLength(20);
    const withPatch = diff.changes.filter((change) => change.patch !== null);
    expect(withPatch.length).toBeGreaterThan(0);
    expect(withPatch.length).toBeLessThan(20);
    expect(diff.changes.at(-1)?.patch).toBeNull();
    expect(diff.changes.every((change) => change.after?.sha256 === sha(`${"x".repeat(200)}\n`.repeat(5)))).toBe(true);
  });
});

describe("a workspace holding a huge file", () => {
  it("is hashed off the main thread: the event loop keeps ticking throughout", async () => {
    const ws = await freshWorkspace();
    const huge = path.join(ws, "huge.bin");
    fs.closeSync(fs.openSync(huge, "w"));
    fs.truncateSync(huge, 1024 ** 3); // 1 GiB, sparse: reads are cheap, hashing is the work
    let finished = false;
    const gaps = timerGaps(() => finished);
    const started = performance.now();
    let workMs = 0;
    try {
      const diff = await diffWorkspace({ dataDir, manifest, workspaceRoot: ws });
      const change = diff.changes.find((item) => item.path === "huge.bin");
      expect(change?.after?.size).toBe(1024 ** 3);
      expect(change?.patchTruncated).toBe(true);
    } finally {
      workMs = performance.now() - started;
      finished = true;
    }
    const stallsMs = await gaps;
    console.log(`1 GiB diff: ${Math.round(workMs)} ms, longest timer gap ${Math.round(Math.max(...stallsMs))} ms`);
    expectNoStall({ stallsMs, workMs });
  });
});
