import fs, { constants } from "node:fs";
import path from "node:path";
import { ancestorsOf, bytesOf, toFsPath, type BytePath } from "../../../lib/files/byte-path";
import { createYielder } from "../../../lib/files/yielder";
import { SNAPSHOT_BRANCH } from "../snapshots/git-repo";
import type { Manifest } from "../snapshots/manifest";
import { openSnapshotContent } from "../snapshots/snapshot-content";
import { dataDirPaths } from "../storage/data-dir";

/** Every directory that holds an entry, parents before children. */
function directoriesOf(manifest: Manifest): BytePath[] {
  const dirs = new Set<BytePath>();
  for (const entry of manifest.entries) for (const dir of ancestorsOf(entry.path)) dirs.add(dir);
  return [...dirs].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

const CREATE = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW;

/** Writes the snapshot's files and its .git into `tree` (which must exist and be empty). */
export async function materializeSnapshot(options: {
  dataDir: string;
  manifest: Manifest;
  tree: string;
}): Promise<void> {
  const { dataDir, manifest, tree } = options;
  const yielder = createYielder();
  for (const dir of directoriesOf(manifest)) fs.mkdirSync(toFsPath(tree, dir));
  const content = openSnapshotContent({ dataDir, manifest });
  try {
    for (const entry of manifest.entries) {
      if (yielder.due()) await yielder.pause();
      const target = toFsPath(tree, entry.path);
      if (entry.type === "symlink") {
        fs.symlinkSync(bytesOf(entry.target ?? ""), target);
        continue;
      }
      const data = content.read(entry);
      const fd = fs.openSync(target, CREATE, entry.mode === "100755" ? 0o755 : 0o644);
      try {
        for (let written = 0; written < data.length;) written += fs.writeSync(fd, data, written, data.length - written);
      } finally {
        fs.closeSync(fd);
      }
    }
  } finally {
    content.close();
  }
  writeWorkspaceGit({
    snapshotGit: dataDirPaths(dataDir).snapshot(manifest.id).git,
    gitDir: path.join(tree, ".git"),
  });
}

/** The workspace's own .git: copies of the small files, and the snapshot's objects as an alternate. */
function writeWorkspaceGit(options: { snapshotGit: string; gitDir: string }): void {
  const { snapshotGit, gitDir } = options;
  for (const dir of ["refs/heads", "refs/tags", "objects/info", "objects/pack"])
    fs.mkdirSync(path.join(gitDir, dir), { recursive: true });
  for (const file of ["HEAD", "config", "index", `refs/heads/${SNAPSHOT_BRANCH}`]) {
    fs.copyFileSync(path.join(snapshotGit, file), path.join(gitDir, file), constants.COPYFILE_FICLONE);
  }
  fs.writeFileSync(path.join(gitDir, "objects", "info", "alternates"), `${path.join(snapshotGit, "objects")}\n`);
}
