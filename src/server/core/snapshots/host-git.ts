import { execFile } from "node:child_process";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { AppError } from "../errors/app-error";

/**
 * The one way the host runs git. A workspace's files — and the `.git` inside its tree — are written
 * by agents, so git on the host must never run a program that a repository, its config or its
 * attributes name. Every host-side git therefore:
 *  - reads no system or global config (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL=/dev/null) and gets a
 *    minimal environment (no GIT_* variables of ours leak in, no terminal prompts);
 *  - has hooks, fsmonitor, the pager, external diff and textconv drivers, and the untracked cache
 *    disabled on its command line (`-c`), which wins over any repository config;
 *  - is given its git dir explicitly (no discovery), and for a workspace that is the host-facing git
 *    dir `<data dir>/workspaces/<id>/git`, which is written by us, never mounted into a container, and
 *    whose config comes from the template below — the agent's `tree/.git` is never read by the host.
 * The documented commands for inspecting a workspace (docs/security.md) are the same settings.
 */
export const SAFE_GIT_CONFIG: readonly string[] = [
  "core.hooksPath=/dev/null",
  "core.fsmonitor=false",
  "core.pager=cat",
  "core.untrackedCache=false",
  "core.sshCommand=false",
  "diff.external=",
  "credential.helper=",
  "protocol.allow=never",
];

/** The fixed config of every git dir the host uses: no hooks, filters, drivers or includes. */
export const HOST_GIT_CONFIG_TEMPLATE = `[core]
\trepositoryformatversion = 0
\tfilemode = true
\tbare = false
\tlogallrefupdates = false
\thooksPath = /dev/null
\tfsmonitor = false
[gc]
\tauto = 0
[user]
\tname = invariant-web agent
\temail = agent@invariant-web.invalid
`;

export function safeGitArguments(options: { gitDir: string; workTree?: string; args: readonly string[] }): string[] {
  return [
    ...SAFE_GIT_CONFIG.flatMap((setting) => ["-c", setting]),
    "--no-pager",
    "--no-optional-locks",
    `--git-dir=${options.gitDir}`,
    ...(options.workTree ? [`--work-tree=${options.workTree}`] : []),
    ...options.args,
  ];
}

export function safeGitEnvironment(): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: "/nonexistent",
    LANG: "C",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_TERMINAL_PROMPT: "0",
    GIT_PAGER: "cat",
    PAGER: "cat",
  } as Record<string, string> as NodeJS.ProcessEnv;
}

/** Runs git on the host with the settings above; a missing binary is an AppError that says what to install. */
export function runHostGit(options: {
  gitDir: string;
  workTree?: string;
  args: readonly string[];
  cwd?: string;
}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      "git",
      safeGitArguments(options),
      { maxBuffer: 64 * 1024 * 1024, env: safeGitEnvironment(), cwd: options.cwd ?? options.gitDir },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if ((error as NodeJS.ErrnoException).code === "ENOENT") {
          reject(
            new AppError({
              code: "PRECONDITION_FAILED",
              message:
                "git is not installed on this host: snapshots are materialised as git repositories. Install git (for example apt-get install git) and try again.",
            }),
          );
        } else reject(new Error(`git ${options.args.join(" ")} failed: ${stderr.trim() || error.message}`));
      },
    );
  });
}

/** Entries of an agent's `.git` that can make git run something or read config from elsewhere. */
const AGENT_GIT_ENTRIES_REMOVED = ["hooks", "info", "commondir", "config.worktree", "config"];

/**
 * Once an agent's run is over, its tree's `.git` gets the template config back and loses its hooks,
 * `info/`, `commondir` and `config.worktree`; a `.git` that is not a real directory (a `gitdir:` file,
 * a symlink) is removed. The host never runs git there anyway: this protects someone who opens the
 * tree with a git-aware tool regardless. Only direct entries are removed (a symlink among them is
 * removed, never followed); nested repositories in the tree keep their config.
 */
export async function resetAgentGitDir(options: { tree: string }): Promise<void> {
  const gitDir = path.join(options.tree, ".git");
  const stat = await fsp.lstat(gitDir).catch(() => null);
  if (!stat) return;
  if (!stat.isDirectory()) {
    await fsp.unlink(gitDir);
    return;
  }
  for (const name of AGENT_GIT_ENTRIES_REMOVED) await fsp.rm(path.join(gitDir, name), { recursive: true, force: true });
  await fsp.writeFile(path.join(gitDir, "config"), HOST_GIT_CONFIG_TEMPLATE, { flag: "wx", mode: 0o644 });
}

/**
 * A workspace's host-facing git dir, beside its tree (never inside it): HEAD, the template config, the
 * snapshot's branch and index, and the snapshot's objects as an alternate. With `--work-tree` on the
 * workspace's tree, `git status` and `git diff` show the agent's changes against the snapshot.
 */
export function writeHostGitDir(options: { snapshotGit: string; gitDir: string; branch: string }): void {
  const { snapshotGit, gitDir, branch } = options;
  for (const dir of ["refs/heads", "refs/tags", "objects/info", "objects/pack", "info"])
    fs.mkdirSync(path.join(gitDir, dir), { recursive: true, mode: 0o700 });
  for (const file of ["HEAD", `refs/heads/${branch}`])
    fs.copyFileSync(path.join(snapshotGit, file), path.join(gitDir, file), fs.constants.COPYFILE_FICLONE);
  // the index (about 100 bytes per file) is shared with the snapshot by a hard link where it can be: git
  // never writes an index in place (it writes index.lock and renames it), so the snapshot's stays as it is
  try {
    fs.linkSync(path.join(snapshotGit, "index"), path.join(gitDir, "index"));
  } catch {
    fs.copyFileSync(path.join(snapshotGit, "index"), path.join(gitDir, "index"), fs.constants.COPYFILE_FICLONE);
  }
  fs.writeFileSync(path.join(gitDir, "config"), HOST_GIT_CONFIG_TEMPLATE);
  fs.writeFileSync(path.join(gitDir, "objects", "info", "alternates"), `${path.join(snapshotGit, "objects")}\n`);
}
