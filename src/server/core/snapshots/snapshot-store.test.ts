import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { git, listTree, mkfifo, p, symlink, utf8, write } from "../../../../test/support/file-trees";
import { tempDir } from "../../../../test/support/temp";
import { displayPath } from "../../../lib/files/byte-path";
import { dataDirPaths } from "../storage/data-dir";
import { openSnapshotContent } from "./snapshot-content";
import { DEFAULT_SNAPSHOT_LIMITS } from "./snapshot-limits";
import { createSnapshot } from "./snapshot-store";

const sha = (data: string | Buffer) => createHash("sha256").update(data).digest("hex");
const NON_UTF8 = "caf\xe9 latin1.txt"; // byte 0xE9 alone is not UTF-8
const NEWLINE = "new\nline.txt";
const BINARY = Buffer.from([0, 1, 2, 255, 0, 10, 13]);

let project: string;
let socket: net.Server;

/** A project with the awkward cases: odd names, links, secrets, caches, ignored files, special files. */
function makeProject(): string {
  const root = tempDir("snap-project");
  write(root, "src/app.ts", "export const a = 1;\n");
  write(root, "bin/run.sh", "#!/bin/sh\necho hi\n", 0o755);
  write(root, "empty.txt", "");
  write(root, "data.bin", BINARY);
  write(root, utf8("name with spaces.txt"), "spaces\n");
  write(root, NEWLINE, "newline\n");
  write(root, NON_UTF8, "latin1\n");
  write(root, utf8("日本語/ファイル.md"), "utf8\n");
  symlink(root, "link-to-etc", "/etc");
  symlink(root, "rel-link", "src/app.ts");
  symlink(root, "dangling", "does/not/exist");
  // secrets and caches: never in a snapshot
  write(root, ".env", "API_KEY=1");
  write(root, ".env.local", "API_KEY=2");
  write(root, "config/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----");
  write(root, "certs/server.pem", "pem");
  write(root, "certs/tls.key", "key");
  write(root, ".aws/credentials", "[default]");
  write(root, ".npmrc", "//registry.npmjs.org/:_authToken=x");
  write(root, "node_modules/left-pad/index.js", "module.exports = 1;");
  write(root, "py/__pycache__/a.cpython-311.pyc", "pyc");
  write(root, ".git/HEAD", "ref: refs/heads/main\n");
  // .gitignore, root and nested
  write(root, ".gitignore", "*.log\nbuild/\n");
  write(root, "debug.log", "log");
  write(root, "build/out.js", "built");
  write(root, "pkg/.gitignore", "!keep.log\n");
  write(root, "pkg/keep.log", "kept");
  mkfifo(root, "pipe");
  return root;
}

beforeAll(async () => {
  project = makeProject();
  socket = net.createServer();
  await new Promise<void>((resolve) => socket.listen(path.join(project, "app.sock"), resolve));
});
afterAll(() => new Promise<void>((resolve) => socket.close(() => resolve())));

describe("a snapshot", () => {
  it("keeps exactly the files a user expects, with type, mode, size and hashes", async () => {
    const dataDir = tempDir("snap-data");
    const { manifest, reused } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir });
    expect(reused).toBe(false);
    const byPath = new Map(manifest.entries.map((entry) => [entry.path, entry]));
    expect([...byPath.keys()].sort()).toEqual(
      [
        ".gitignore",
        "bin/run.sh",
        "dangling",
        "data.bin",
        "empty.txt",
        "link-to-etc",
        utf8("name with spaces.txt"),
        NEWLINE,
        NON_UTF8,
        "pkg/.gitignore",
        "pkg/keep.log",
        "rel-link",
        "src/app.ts",
        utf8("日本語/ファイル.md"),
      ].sort(),
    );
    expect(byPath.get("bin/run.sh")).toMatchObject({ type: "file", mode: "100755" });
    expect(byPath.get("src/app.ts")).toMatchObject({
      type: "file",
      mode: "100644",
      size: 20,
      sha256: sha("export const a = 1;\n"),
    });
    expect(byPath.get("empty.txt")).toMatchObject({ size: 0, sha256: sha("") });
    expect(byPath.get("data.bin")).toMatchObject({ size: BINARY.length, sha256: sha(BINARY) });
    // links are kept as links, never followed: nothing of /etc is in the snapshot
    expect(byPath.get("link-to-etc")).toMatchObject({ type: "symlink", mode: "120000", target: "/etc" });
    expect(byPath.get("dangling")).toMatchObject({ type: "symlink", target: "does/not/exist" });
    expect(manifest.entries.some((entry) => entry.path.startsWith("link-to-etc/"))).toBe(false);
    // the pack holds the content, byte for byte, where the manifest says
    const content = openSnapshotContent({ dataDir, manifest });
    for (const entry of manifest.entries) expect(sha(content.read(entry))).toBe(entry.sha256);
    content.close();
    expect(manifest.fileCount).toBe(14);
  });

  it("leaves out secrets and caches, says which secrets, and reports special files", async () => {
    const { manifest } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir: tempDir("snap-data") });
    expect(manifest.excluded.secrets.map(displayPath).sort()).toEqual([
      ".aws",
      ".env",
      ".env.local",
      ".npmrc",
      "certs/server.pem",
      "certs/tls.key",
      "config/id_rsa",
    ]);
    expect(manifest.excluded.counts).toMatchObject({ secrets: 7, vcs: 1, dependencies: 2 });
    expect(manifest.excluded.ignoredByGitignore).toBe(2); // debug.log, build/
    expect(manifest.skipped).toEqual([
      { path: "app.sock", kind: "socket" },
      { path: "pipe", kind: "fifo" },
    ]);
    const all = manifest.entries.map((entry) => entry.path).join("\n");
    expect(all).not.toMatch(/\.env|id_rsa|\.pem|node_modules|__pycache__|\.git\/|debug\.log|build\//);
  });

  it("is a git repository whose single commit is the snapshot", async () => {
    const dataDir = tempDir("snap-data");
    const { manifest } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir });
    const gitDir = dataDirPaths(dataDir).snapshot(manifest.id).git;
    git(dataDir, ["--git-dir", gitDir, "fsck", "--strict", "--no-dangling"]);
    expect(git(dataDir, ["--git-dir", gitDir, "rev-list", "--count", "HEAD"]).trim()).toBe("1");
    expect(git(dataDir, ["--git-dir", gitDir, "rev-parse", "HEAD"]).trim()).toBe(manifest.commit);
    const tree = git(dataDir, ["--git-dir", gitDir, "ls-tree", "-r", "-z", "HEAD"])
      .split("\0")
      .filter(Boolean)
      .map((line) => {
        const [meta = "", name = ""] = line.split("\t");
        const [mode, , oid] = meta.split(" ");
        return { path: name, mode, oid };
      });
    expect(tree).toEqual(
      expect.arrayContaining(manifest.entries.map((entry) => ({ path: entry.path, mode: entry.mode, oid: entry.oid }))),
    );
    expect(tree).toHaveLength(manifest.entries.length);
    const latin1Entry = manifest.entries.find((entry) => entry.path === NON_UTF8);
    expect(git(dataDir, ["--git-dir", gitDir, "cat-file", "blob", latin1Entry?.oid ?? ""])).toBe("latin1\n");
    expect(git(dataDir, ["--git-dir", gitDir, "log", "--format=%an %ad", "--date=iso-strict"]).trim()).toBe(
      "invariant-web 2000-01-01T00:00:00+00:00",
    );
  });

  it("has the same id for the same content, reuses it, and a new id after a change", async () => {
    const dataDir = tempDir("snap-data");
    const first = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir });
    const again = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir });
    expect(again).toMatchObject({ reused: true, manifest: { id: first.manifest.id, commit: first.manifest.commit } });
    expect(fs.readdirSync(path.join(dataDir, "snapshots")).sort()).toEqual([first.manifest.id]);
    const other = await createSnapshot({ projectRoot: project, projectId: "p2", dataDir });
    expect(other.manifest.id).not.toBe(first.manifest.id); // a snapshot belongs to one project

    const copy = tempDir("snap-copy");
    execFileSync("cp", ["-a", `${project}/.`, copy]); // byte-exact names (fs.cp cannot copy non-UTF-8 ones)
    const same = await createSnapshot({ projectRoot: copy, projectId: "p1", dataDir });
    expect(same.manifest.id).toBe(first.manifest.id); // location and timestamps do not matter
    fs.chmodSync(p(copy, "src/app.ts"), 0o755);
    const moded = await createSnapshot({ projectRoot: copy, projectId: "p1", dataDir });
    expect(moded.manifest.id).not.toBe(first.manifest.id);
  });
});

describe("limits", () => {
  function dataDirListing(dataDir: string): string[] {
    return listTree(dataDir);
  }

  it.each([
    [
      "maxFiles",
      { maxFiles: 5 },
      /the project has 14 files after exclusions; the limit is 5 \(maxFiles\)\. Directories with the most files: .*(bin|src|pkg)\/ \(/,
    ],
    [
      "maxFileBytes",
      { maxFileBytes: 10 },
      /exceed the single-file limit of 10 B \(maxFileBytes\): src\/app\.ts \(20 B\)/,
    ],
    [
      "maxTotalBytes",
      { maxTotalBytes: 40 },
      /holds .* after exclusions; the limit is 40 B \(maxTotalBytes\)\..*largest files: src\/app\.ts \(20 B\)/,
    ],
  ])("refuses past %s, explains, and writes nothing", async (_name, limits, message) => {
    const dataDir = tempDir("snap-data");
    const before = dataDirListing(dataDir);
    await expect(
      createSnapshot({
        projectRoot: project,
        projectId: "p1",
        dataDir,
        limits: { ...DEFAULT_SNAPSHOT_LIMITS, ...limits },
      }),
    ).rejects.toMatchObject({
      code: "PRECONDITION_FAILED",
      message: expect.stringMatching(message) as unknown,
    });
    expect(dataDirListing(dataDir)).toEqual(before);
  });

  it("leaves no temporary directory behind when git fails", async () => {
    const dataDir = tempDir("snap-data");
    await expect(
      createSnapshot({
        projectRoot: project,
        projectId: "p1",
        dataDir,
        git: () => Promise.reject(new Error("git exploded")),
      }),
    ).rejects.toThrow("git exploded");
    expect(fs.readdirSync(path.join(dataDir, "snapshots"))).toEqual([]);
  });
});
