import fs from "node:fs";
import path from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { p, symlink, utf8, write } from "../../../../test/support/file-trees";
import { gitApply, gitTree } from "../../../../test/support/git-trees";
import { tempDir } from "../../../../test/support/temp";
import type { Manifest } from "../../core/snapshots/manifest";
import { createSnapshot } from "../../core/snapshots/snapshot-store";
import { createWorkspace } from "../../core/workspaces/workspace-store";
import { materializeSnapshot } from "../../core/workspaces/materialize-snapshot";
import { base85Line } from "./binary-patch";
import { createDiffCache } from "./diff-cache";
import { trialPatch } from "./trial-patch";

const NON_UTF8_NAME = "caf\xe9.txt";
const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * seed + 7) % 256));
let dataDir: string;
let manifest: Manifest;

beforeAll(async () => {
  const project = tempDir("patch-project");
  write(project, "src/app.ts", "a\nb\nc\n");
  write(project, "src/gone.ts", "bye\n");
  write(project, "run.sh", "#!/bin/sh\n");
  write(project, "image.bin", bytes(3000, 31));
  write(project, "gone.bin", bytes(500, 7));
  write(project, "latin1.txt", Buffer.from("caf\xe9\n", "latin1"));
  write(project, NON_UTF8_NAME, "latin1 name\n");
  write(project, "empty-gone", "");
  write(project, "no-newline.txt", "last line");
  symlink(project, "link", "src/app.ts");
  symlink(project, "becomes-file", "src/app.ts");
  write(project, "becomes-link", "file\n");
  dataDir = tempDir("patch-data");
  ({ manifest } = await createSnapshot({ projectRoot: project, projectId: "p1", dataDir }));
});

async function snapshotCopy(): Promise<string> {
  const tree = tempDir("patch-target");
  await materializeSnapshot({ dataDir, manifest, tree });
  return tree;
}

async function patchOf(workspaceId: string, maxBinaryBytes?: number): Promise<string> {
  const cache = createDiffCache({ dataDir });
  const diff = await cache.get({ workspaceId, stamp: "1", live: false });
  let text = "";
  for await (const chunk of trialPatch({
    dataDir,
    diff,
    preamble: ["test patch"],
    ...(maxBinaryBytes ? { maxBinaryBytes } : {}),
  }))
    text += chunk;
  return text;
}

describe("base85 lines", () => {
  it("match git's encoding (length character, zero-padded groups of five)", () => {
    // git apply checks every binary result by its blob id (test below); these pin the alphabet and the length character
    expect(base85Line(Buffer.from([0, 0, 0, 0]))).toBe("D00000");
    expect(base85Line(Buffer.from([0xff, 0xff, 0xff, 0xff]))).toBe("D|NsC0");
    expect(base85Line(Buffer.alloc(52)).length).toBe(1 + 13 * 5);
    expect(base85Line(Buffer.alloc(52))[0]).toBe("z");
    expect(base85Line(Buffer.alloc(27))[0]).toBe("a");
  });
});

describe("a trial patch", () => {
  it("applies with git apply on the snapshot and reproduces the workspace byte for byte", async () => {
    const ws = await createWorkspace({ dataDir, snapshotId: manifest.id });
    const root = ws.path;
    fs.writeFileSync(path.join(root, "src/app.ts"), "a\nB\nc\nd\n");
    fs.rmSync(path.join(root, "src/gone.ts"));
    fs.chmodSync(path.join(root, "run.sh"), 0o755);
    write(root, utf8("new dir/new file.txt"), "fresh\n");
    write(root, "empty-new", "");
    fs.rmSync(path.join(root, "empty-gone"));
    const image = bytes(3000, 31);
    image[100] = 1;
    fs.writeFileSync(path.join(root, "image.bin"), image);
    fs.rmSync(path.join(root, "gone.bin"));
    write(root, "added.bin", bytes(70_000, 13));
    fs.writeFileSync(path.join(root, "latin1.txt"), Buffer.from("caf\xe9 au lait\n", "latin1"));
    fs.writeFileSync(p(root, NON_UTF8_NAME), "changed\n");
    write(root, "big.txt", "line of text that repeats\n".repeat(60_000), 0o755); // > 1 MiB: a binary patch
    fs.appendFileSync(path.join(root, "no-newline.txt"), " and more");
    fs.rmSync(path.join(root, "link"));
    symlink(root, "link", "run.sh");
    fs.rmSync(path.join(root, "becomes-file"));
    write(root, "becomes-file", "now a file\n");
    fs.rmSync(path.join(root, "becomes-link"));
    symlink(root, "becomes-link", "/etc/passwd");

    const patch = await patchOf(ws.id);
    expect(patch.startsWith("# test patch\n")).toBe(true);
    expect(patch).toContain("GIT binary patch");
    const patchFile = path.join(tempDir("patch-file"), "trial.patch");
    fs.writeFileSync(patchFile, patch);
    const target = await snapshotCopy();
    gitApply(target, patchFile, ["--check"]);
    gitApply(target, patchFile);
    expect(gitTree(target)).toEqual(gitTree(root));
  });

  it("lists files over the binary limit at the top and leaves them out; the rest still applies", async () => {
    const ws = await createWorkspace({ dataDir, snapshotId: manifest.id });
    write(ws.path, "huge.bin", bytes(5000, 3));
    write(ws.path, "small.txt", "small\n");
    const patch = await patchOf(ws.id, 4096);
    expect(patch).toMatch(/^# Not included: 1 file\(s\) over 4,096 bytes:\n# {3}added huge\.bin \(5000 bytes\)$/m);
    expect(patch).not.toContain("b/huge.bin");
    const patchFile = path.join(tempDir("patch-file"), "trial.patch");
    fs.writeFileSync(patchFile, patch);
    const target = await snapshotCopy();
    gitApply(target, patchFile);
    expect(gitTree(target)).toEqual(gitTree(ws.path, { skip: (rel) => rel === "huge.bin" }));
  });
});
