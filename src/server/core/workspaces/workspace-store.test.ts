import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { git, listTree, p, read, symlink, utf8, write } from "../../../../test/support/file-trees";
import { tempDir } from "../../../../test/support/temp";
import type { Manifest } from "../snapshots/manifest";
import { dataDirPaths } from "../storage/data-dir";
import { openSnapshotContent } from "../snapshots/snapshot-content";
import { createSnapshot } from "../snapshots/snapshot-store";
import { createWorkspace, readWorkspace, removeWorkspace } from "./workspace-store";

const NON_UTF8 = "caf\xe9.txt";
const NEWLINE = "new\nline.txt";
let dataDir: string;
let project: string;
let manifest: Manifest;

beforeAll(async () => {
  project = tempDir("ws-project");
  write(project, "src/app.ts", "line 1\nline 2\nline 3\n");
  write(project, "bin/tool", "#!/bin/sh\n", 0o755);
  write(project, "empty", "");
  write(project, "blob.bin", Buffer.from([0, 255, 0, 1]));
  write(project, utf8("dir with spaces/a b.txt"), "spaces\n");
  write(project, NEWLINE, "nl\n");
  write(project, NON_UTF8, "latin1\n");
  symlink(project, "link-to-etc", "/etc");
  symlink(project, "src/self", "app.ts");
  write(project, ".env", "SECRET=1");
  dataDir = tempDir("ws-data");
  ({ manifest } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir }));
});

const notSecretOrGit = (rel: string) => rel === ".env" || rel === ".git";

describe("a workspace", () => {
  it("is an exact copy of the snapshot: names, types, modes, bytes, links", async () => {
    const workspace = await createWorkspace({ dataDir, snapshotId: manifest.id });
    expect(workspace).toMatchObject({ projectId: "p1", snapshotId: manifest.id });
    expect(workspace.path).toBe(path.join(dataDir, "workspaces", workspace.id, "tree"));
    expect(listTree(workspace.path, { skip: notSecretOrGit })).toEqual(listTree(project, { skip: notSecretOrGit }));
    expect(fs.readlinkSync(path.join(workspace.path, "link-to-etc"))).toBe("/etc");
    expect(fs.existsSync(path.join(workspace.path, ".env"))).toBe(false);
    await expect(readWorkspace({ dataDir, workspaceId: workspace.id })).resolves.toMatchObject({
      id: workspace.id,
      path: workspace.path,
    });
  });

  it("is a clean git checkout of the snapshot's commit, and `git diff` shows an edit", async () => {
    const workspace = await createWorkspace({ dataDir, snapshotId: manifest.id });
    const cwd = workspace.path;
    expect(git(cwd, ["rev-parse", "HEAD"]).trim()).toBe(manifest.commit);
    expect(git(cwd, ["status", "--porcelain", "-z"])).toBe("");
    fs.writeFileSync(path.join(cwd, "src/app.ts"), "line 1\nline two\nline 3\n");
    fs.writeFileSync(p(cwd, NON_UTF8), "changed\n");
    const diff = git(cwd, ["diff"]);
    expect(diff).toContain("diff --git a/src/app.ts b/src/app.ts");
    expect(diff).toContain("-line 2\n+line two\n");
    expect(git(cwd, ["diff", "--name-only", "-z"]).split("\0").filter(Boolean).sort()).toEqual(
      [NON_UTF8, "src/app.ts"].sort(),
    );
    // an agent can commit in it
    git(cwd, ["commit", "-q", "-am", "agent edit"]);
    expect(git(cwd, ["rev-list", "--count", "HEAD"]).trim()).toBe("2");
  });

  it("is private: edits never reach the snapshot (own files, no hard links), and git borrows the snapshot's objects", async () => {
    const workspace = await createWorkspace({ dataDir, snapshotId: manifest.id });
    const file = path.join(workspace.path, "src/app.ts");
    expect(fs.statSync(file).nlink).toBe(1);
    fs.appendFileSync(file, "agent was here\n");
    fs.chmodSync(path.join(workspace.path, "bin/tool"), 0o644);
    const content = openSnapshotContent({ dataDir, manifest });
    const entry = manifest.entries.find((item) => item.path === "src/app.ts");
    expect(entry && content.read(entry).toString()).toBe("line 1\nline 2\nline 3\n");
    content.close();
    const second = await createWorkspace({ dataDir, snapshotId: manifest.id });
    expect(read(second.path, "src/app.ts").toString()).toBe("line 1\nline 2\nline 3\n");
    expect(fs.statSync(path.join(second.path, "bin/tool")).mode & 0o777).toBe(0o755);
    expect(fs.readFileSync(path.join(second.path, ".git/objects/info/alternates"), "utf8")).toBe(
      `${dataDirPaths(dataDir).snapshot(manifest.id).gitObjects}\n`,
    );
    expect(fs.readdirSync(path.join(second.path, ".git/objects/pack"))).toEqual([]);
    git(second.path, ["fsck", "--no-dangling"]);
  });

  it("is removed completely, even with read-only directories a run left behind", async () => {
    const workspace = await createWorkspace({ dataDir, snapshotId: manifest.id });
    write(workspace.path, "locked/inner/file", "x");
    fs.chmodSync(path.join(workspace.path, "locked/inner"), 0o500);
    fs.chmodSync(path.join(workspace.path, "locked"), 0o500);
    await expect(removeWorkspace({ dataDir, workspaceId: workspace.id })).resolves.toEqual({ removed: true });
    expect(fs.existsSync(path.dirname(workspace.path))).toBe(false);
    await expect(removeWorkspace({ dataDir, workspaceId: workspace.id })).resolves.toEqual({ removed: false });
    await expect(readWorkspace({ dataDir, workspaceId: workspace.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("refuses ids that are not workspace ids, and unknown snapshots", async () => {
    await expect(removeWorkspace({ dataDir, workspaceId: "../../etc" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(createWorkspace({ dataDir, snapshotId: "0".repeat(64) })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect(fs.readdirSync(path.join(dataDir, "workspaces")).filter((name) => name.startsWith(".tmp-"))).toEqual([]);
  });
});
