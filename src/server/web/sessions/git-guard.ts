import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { executableSettings, treePathsNamed } from "./git-config-view";
import { gitLayoutOf, GUARDED_FILES, GUARDED_TREES } from "./git-guard-paths";

/**
 * What a direct session may not change in the project's git repository: the files that decide which
 * programs `git` runs on the host (config, config.worktree, commondir, info/attributes, hooks), in the
 * repository and in every git directory inside it (submodules, worktrees). The session's container gets
 * them read-only (git-guard-paths.ts); this is the backstop for what a mount cannot stop (a file created
 * where none was, a new submodule): a snapshot at the session's start, compared while it runs and when it
 * ends, and every difference undone — restored, or removed when it was not there. Only a config change
 * that leaves every setting able to run a program as it was is kept (git-config-view.ts): the mounts
 * cannot tell the user's own `git config` on the host from the session's, and a host-side rewrite of a
 * file (git writes config by renaming a new file over it) detaches a read-only mount of it.
 */
export interface GitGuardEntry {
  type: "file" | "link";
  /** sha256 of the content (file) or of the target (link). */
  sha256: string;
  mode: number;
}

export interface GitGuardSnapshot {
  projectDir: string;
  /** Path relative to the project directory → what was there at the start (absent: nothing was). */
  entries: Record<string, GitGuardEntry>;
  /** When it was taken (ms): an entry changed since has a later ctime, which no one in a container can set back. */
  takenAt: number;
  /** What the repository's config named in the tree when it was taken (a changed config's are never trusted). */
  tree: TreePaths;
}

type TreePaths = ReturnType<typeof treePathsNamed>;

/** At most this many guarded files per repository (a hooks folder with more is not a git hooks folder). */
const MAX_ENTRIES = 2000;
const CONFIG_FILES = new Set(["config", "config.worktree"]);
const sha256 = (data: Buffer | string) => createHash("sha256").update(data).digest("hex");

function entryAt(full: string): GitGuardEntry | null {
  const stat = fs.lstatSync(full, { throwIfNoEntry: false });
  if (!stat) return null;
  if (stat.isSymbolicLink()) return { type: "link", sha256: sha256(fs.readlinkSync(full)), mode: 0o777 };
  if (stat.isFile()) return { type: "file", sha256: sha256(fs.readFileSync(full)), mode: stat.mode & 0o7777 };
  // a folder where a guarded file belongs: recorded so it is noticed and removed
  return { type: "file", sha256: "not-a-file", mode: stat.mode & 0o7777 };
}

/** Every guarded path that exists now, relative to the project directory (never following a symlink). */
function guardedPaths(projectDir: string, options: { submodules: boolean; tree: TreePaths }): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    if (found.length >= MAX_ENTRIES) return;
    const stat = fs.lstatSync(path.join(projectDir, relative), { throwIfNoEntry: false });
    if (!stat) return;
    if (!stat.isDirectory()) return void found.push(relative);
    for (const name of fs.readdirSync(path.join(projectDir, relative))) walk(path.join(relative, name));
  };
  // a `.git` file (a worktree's or submodule's pointer) or link says where git finds the config: guarded itself
  const top = fs.lstatSync(path.join(projectDir, ".git"), { throwIfNoEntry: false });
  if (top && !top.isDirectory()) found.push(".git");
  const layout = gitLayoutOf(projectDir, options);
  found.push(...layout.pointers);
  for (const gitDir of layout.dirs) {
    for (const file of GUARDED_FILES) {
      const relative = path.join(gitDir, file);
      if (fs.lstatSync(path.join(projectDir, relative), { throwIfNoEntry: false })) found.push(relative);
    }
    for (const tree of GUARDED_TREES) walk(path.join(gitDir, tree));
  }
  // what the repository's own config pointed at in the tree: a hooks folder (husky's .husky), included files
  for (const hooks of options.tree.hooks) walk(hooks);
  for (const include of options.tree.includes)
    if (fs.lstatSync(path.join(projectDir, include), { throwIfNoEntry: false })) found.push(include);
  return found;
}

/** The entry at `relative` now, its content kept in `saveDir` (by hash); null: nothing usable there. */
function keep(options: { projectDir: string; saveDir: string; relative: string }): GitGuardEntry | null {
  const full = path.join(options.projectDir, options.relative);
  const entry = entryAt(full);
  if (!entry || entry.sha256 === "not-a-file") return null;
  const saved = path.join(options.saveDir, entry.sha256);
  if (!fs.existsSync(saved))
    fs.writeFileSync(saved, entry.type === "link" ? fs.readlinkSync(full) : fs.readFileSync(full), { mode: 0o600 });
  return entry;
}

function save(snapshot: GitGuardSnapshot, saveDir: string): void {
  fs.writeFileSync(path.join(saveDir, "snapshot.json"), JSON.stringify(snapshot), { mode: 0o600 });
}

/**
 * Records the guarded files of the project's repository, with a copy of each in `saveDir` (by content
 * hash): at a direct session's start, and at each resume (what changed meanwhile was the user's).
 */
export function snapshotGitGuard(options: { projectDir: string; saveDir: string }): GitGuardSnapshot {
  fs.mkdirSync(options.saveDir, { recursive: true, mode: 0o700 });
  const entries: Record<string, GitGuardEntry> = {};
  const takenAt = Date.now();
  const tree: TreePaths = { hooks: [], includes: [] };
  for (const file of ["config", "config.worktree"]) {
    const named = treePathsNamed({ file: path.join(options.projectDir, ".git", file), projectDir: options.projectDir });
    tree.hooks.push(...named.hooks);
    tree.includes.push(...named.includes);
  }
  for (const relative of guardedPaths(options.projectDir, { submodules: true, tree })) {
    const entry = keep({ ...options, relative });
    if (entry) entries[relative] = entry;
  }
  const snapshot = { projectDir: options.projectDir, entries, takenAt, tree };
  save(snapshot, options.saveDir);
  return snapshot;
}

/** The snapshot saved at the session's start, or null (not a direct session). */
export function readGitGuard(saveDir: string): GitGuardSnapshot | null {
  try {
    return JSON.parse(fs.readFileSync(path.join(saveDir, "snapshot.json"), "utf8")) as GitGuardSnapshot;
  } catch {
    return null;
  }
}

/** Makes every folder on the way to `relative` a real folder: a symlink planted there is removed, never followed. */
function realParents(projectDir: string, relative: string): void {
  let at = projectDir;
  for (const part of path.dirname(relative).split(path.sep).filter(Boolean)) {
    at = path.join(at, part);
    const stat = fs.lstatSync(at, { throwIfNoEntry: false });
    if (stat?.isDirectory()) continue;
    if (stat) fs.rmSync(at, { force: true });
    fs.mkdirSync(at, { mode: 0o755 });
  }
}

function restore(options: { snapshot: GitGuardSnapshot; saveDir: string; relative: string; owner: fs.Stats }) {
  const { snapshot, relative } = options;
  const full = path.join(snapshot.projectDir, relative);
  const entry = snapshot.entries[relative];
  realParents(snapshot.projectDir, relative); // first: a removal never goes through a planted symlink
  fs.rmSync(full, { recursive: true, force: true }); // a symlink goes, not what it points at
  if (!entry) return;
  const saved = fs.readFileSync(path.join(options.saveDir, entry.sha256));
  if (entry.type === "link") fs.symlinkSync(saved.toString(), full);
  else {
    const flags = fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_EXCL | fs.constants.O_NOFOLLOW;
    const fd = fs.openSync(full, flags, entry.mode);
    try {
      fs.writeSync(fd, saved);
      fs.fchmodSync(fd, entry.mode);
    } finally {
      fs.closeSync(fd);
    }
  }
  // a dashboard running as root gives the file back to whoever owns the repository
  if (process.getuid?.() === 0) fs.lchownSync(full, options.owner.uid, options.owner.gid);
}

/**
 * A config file whose settings that can run programs are what they were (the user set user.name or added a
 * remote on the host while the session ran): taken into the snapshot, not undone.
 */
function harmlessConfigChange(options: {
  snapshot: GitGuardSnapshot;
  saveDir: string;
  relative: string;
  before: GitGuardEntry;
}): boolean {
  if (!CONFIG_FILES.has(path.basename(options.relative)) || options.before.type !== "file") return false;
  const full = path.join(options.snapshot.projectDir, options.relative);
  if (!fs.lstatSync(full, { throwIfNoEntry: false })?.isFile()) return false;
  const was = executableSettings(path.join(options.saveDir, options.before.sha256));
  const now = executableSettings(full);
  return was !== null && now !== null && was.join("\n") === now.join("\n");
}

/**
 * Whether the file and every folder on its way from the project directory are unchanged since `takenAt`
 * (ctime: set by the kernel at any change, a rename too, and never set back from a container): a folder
 * moved into place by the session counts as changed.
 */
function unchangedSince(options: { projectDir: string; relative: string; takenAt: number }): boolean {
  let at = options.projectDir;
  for (const part of options.relative.split(path.sep)) {
    at = path.join(at, part);
    if ((fs.lstatSync(at, { throwIfNoEntry: false })?.ctimeMs ?? Infinity) >= options.takenAt) return false;
  }
  return true;
}

function enforcePass(options: {
  snapshot: GitGuardSnapshot;
  saveDir: string;
  submodules: boolean;
  owner: fs.Stats;
  /** Only say what would be undone; write nothing. */
  dryRun: boolean;
}) {
  const { snapshot } = options;
  const now = new Set(guardedPaths(snapshot.projectDir, { ...options, tree: snapshot.tree }));
  const known = Object.keys(snapshot.entries).filter(
    (relative) => options.submodules || relative.split(path.sep)[0] === ".git",
  );
  const undone: string[] = [];
  for (const relative of [...new Set([...known, ...now])].sort()) {
    const before = snapshot.entries[relative];
    const after = now.has(relative) ? entryAt(path.join(snapshot.projectDir, relative)) : null;
    const same = before && after && before.type === after.type && before.sha256 === after.sha256;
    if (same && (before.type === "link" || before.mode === after.mode)) continue;
    // newly guarded but untouched since the start (the user's own nested repository, named by a new gitlink)
    const untouched =
      !before && after && unchangedSince({ projectDir: snapshot.projectDir, relative, takenAt: snapshot.takenAt });
    if (untouched || (before && after && harmlessConfigChange({ ...options, relative, before }))) {
      const entry = options.dryRun
        ? null
        : keep({ projectDir: snapshot.projectDir, saveDir: options.saveDir, relative });
      if (entry) snapshot.entries[relative] = entry;
      continue;
    }
    if (!options.dryRun) restore({ ...options, relative });
    undone.push(`${before ? "restored" : "removed"} ${relative}`);
  }
  return undone;
}

/**
 * Compares the guarded files with the snapshot and undoes every difference. Returns what it undid
 * ("restored"/"removed" and the path), empty when nothing changed. Two passes: the repository's own git
 * directory first (no git runs for it), then, asking that git which submodules the index names, theirs.
 * Only for a session whose container is not running: one that runs could swap a folder on the way for a
 * symlink between a check and a write (checkGitGuardNow says what it would undo, and its container is
 * stopped first).
 */
export function enforceGitGuard(options: { snapshot: GitGuardSnapshot; saveDir: string }): string[] {
  const owner = fs.lstatSync(options.snapshot.projectDir, { throwIfNoEntry: false });
  if (!owner?.isDirectory()) return [];
  const undone = [
    ...enforcePass({ ...options, owner, submodules: false, dryRun: false }),
    ...enforcePass({ ...options, owner, submodules: true, dryRun: false }),
  ];
  save(options.snapshot, options.saveDir);
  return undone;
}

/**
 * What enforceGitGuard would undo now, writing nothing (while the session's container runs). The
 * submodules are asked of git only once the repository's own files are found as they were.
 */
export function gitGuardDifferences(options: { snapshot: GitGuardSnapshot; saveDir: string }): string[] {
  const owner = fs.lstatSync(options.snapshot.projectDir, { throwIfNoEntry: false });
  if (!owner?.isDirectory()) return [];
  const own = enforcePass({ ...options, owner, submodules: false, dryRun: true });
  return own.length > 0 ? own : enforcePass({ ...options, owner, submodules: true, dryRun: true });
}
