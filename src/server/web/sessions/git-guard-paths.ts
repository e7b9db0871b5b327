import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { CONTAINER_PATHS } from "../../core/agents/harness";
import type { Mount } from "../../core/runtime/container-spec";

/**
 * Which files of a git directory decide what programs `git` runs: its config (core.fsmonitor, hooksPath,
 * sshCommand, pager, filter and diff drivers, `!` aliases, include.path), the per-worktree config, a
 * `commondir` that would send git to another directory's config, and `info/attributes` (names filter and
 * diff drivers; one needs a config entry to run, but it is guarded with them). A `.gitattributes` in the
 * tree can name a driver too, which likewise runs only when a config defines it.
 */
export const GUARDED_FILES = ["config", "config.worktree", "commondir", "info/attributes"] as const;
/** Folders whose every file is guarded: the hooks. */
export const GUARDED_TREES = ["hooks"] as const;
/** What a session's container gets read-only in each git directory (when it exists at the start). */
const READ_ONLY = ["config", "config.worktree", "hooks", "info"] as const;

const MAX_GIT_DIRS = 200;

const isDir = (full: string) => fs.lstatSync(full, { throwIfNoEntry: false })?.isDirectory() === true;
const inside = (child: string, parent: string) => {
  const relative = path.relative(parent, child);
  return relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
};

/** Git directories under `.git` (relative to the project): its worktrees' and its submodules' (modules/…, nested). */
function innerGitDirs(projectDir: string): string[] {
  const found: string[] = [];
  const worktrees = path.join(projectDir, ".git", "worktrees");
  if (isDir(worktrees)) for (const name of fs.readdirSync(worktrees)) found.push(path.join(".git", "worktrees", name));
  const walk = (relative: string, depth: number) => {
    if (found.length >= MAX_GIT_DIRS || depth > 6 || !isDir(path.join(projectDir, relative))) return;
    if (fs.existsSync(path.join(projectDir, relative, "HEAD"))) found.push(relative);
    for (const name of fs.readdirSync(path.join(projectDir, relative))) walk(path.join(relative, name), depth + 1);
  };
  walk(path.join(".git", "modules"), 0);
  return found.filter((dir) => isDir(path.join(projectDir, dir)));
}

/**
 * The git directories of the submodules the index names (gitlinks), inside the project: `git status` on the
 * host runs git in each, with its own config. Asked of the repository's own git only once its guarded
 * files are the user's again (enforceGitGuard's first pass), and with fsmonitor and hooks off.
 */
function submoduleGitDirs(projectDir: string): { dirs: string[]; pointers: string[] } {
  let listing: string;
  try {
    listing = execFileSync(
      "git",
      ["-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null", "ls-files", "--stage", "-z"],
      {
        cwd: projectDir,
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
        stdio: ["ignore", "pipe", "ignore"],
        // neither the user's global nor the system config: only the repository's own, guarded one
        env: {
          ...process.env,
          GIT_DIR: undefined,
          GIT_WORK_TREE: undefined,
          GIT_INDEX_FILE: undefined,
          GIT_CONFIG_NOSYSTEM: "1",
          GIT_CONFIG_GLOBAL: "/dev/null",
          GIT_PAGER: "cat",
        },
      },
    );
  } catch {
    return { dirs: [], pointers: [] }; // no git on the host: nothing runs it there either
  }
  const found: string[] = [];
  const pointers: string[] = [];
  for (const line of listing.split("\0")) {
    if (!line.startsWith("160000 ") || found.length >= MAX_GIT_DIRS) continue;
    const worktree = line.slice(line.indexOf("\t") + 1);
    const dotGit = path.join(projectDir, worktree, ".git");
    const stat = fs.lstatSync(dotGit, { throwIfNoEntry: false });
    let gitDir: string | null = stat?.isDirectory() ? dotGit : null;
    const pointer = stat?.isFile() ? /^gitdir:\s*(.+)$/m.exec(fs.readFileSync(dotGit, "utf8").slice(0, 4096)) : null;
    if (pointer?.[1]) gitDir = path.resolve(path.dirname(dotGit), pointer[1].trim());
    // a pointer file says where git goes: it is guarded itself (one the session wrote is removed)
    if (stat && !stat.isDirectory()) pointers.push(path.relative(projectDir, dotGit));
    if (gitDir && inside(gitDir, projectDir) && isDir(gitDir)) found.push(path.relative(projectDir, gitDir));
  }
  return { dirs: found, pointers };
}

/** Every git directory of the project the guard covers, relative to it: `.git` first; none when `.git` is no folder. */
export function gitDirsOf(projectDir: string, options: { submodules: boolean }): string[] {
  return gitLayoutOf(projectDir, options).dirs;
}

/** gitDirsOf, and the `.git` pointer files of the submodules the index names. */
export function gitLayoutOf(projectDir: string, options: { submodules: boolean }) {
  if (!isDir(path.join(projectDir, ".git"))) return { dirs: [], pointers: [] };
  const submodules = options.submodules ? submoduleGitDirs(projectDir) : { dirs: [], pointers: [] };
  return {
    dirs: [...new Set([".git", ...innerGitDirs(projectDir), ...submodules.dirs])],
    pointers: submodules.pointers,
  };
}

/**
 * A direct session's mounts over its project directory: `.git` as a mount of its own (a mount point cannot
 * be renamed or removed, so the session cannot swap in a `.git` of its making), and in every git directory
 * the guarded files and folders read-only, so git in the session refuses to change them. Only what exists
 * and is no symlink (a mount target must exist, and Docker would create a missing one in the project
 * directory). A file's mount holds until the host renames another file over it (git on the host writes its
 * config that way), so the guard (git-guard.ts) is what the boundary rests on; the mounts make an attempt
 * fail at once in the common case.
 */
export function gitGuardMounts(projectDir: string): Mount[] {
  const gitDirs = gitDirsOf(projectDir, { submodules: true });
  if (gitDirs.length === 0) return [];
  const at = (relative: string) => ({
    hostPath: path.join(projectDir, relative),
    containerPath: path.posix.join(CONTAINER_PATHS.workspace, relative.split(path.sep).join("/")),
  });
  const mounts: Mount[] = [{ ...at(".git"), readOnly: false }];
  for (const gitDir of gitDirs)
    for (const name of READ_ONLY) {
      const relative = path.join(gitDir, name);
      const stat = fs.lstatSync(path.join(projectDir, relative), { throwIfNoEntry: false });
      if (stat && !stat.isSymbolicLink()) mounts.push({ ...at(relative), readOnly: true });
    }
  return mounts;
}
