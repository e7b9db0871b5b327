import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { AppError } from "../errors/app-error";
import { SAFE_GIT_CONFIG, safeGitEnvironment } from "../snapshots/host-git";

/**
 * Git on a user's own project repository. Unlike a workspace's git dir (host-git.ts), its `.git/config`
 * and hooks are not ours: anything that could write the project folder (a direct session's agent, a
 * cloned repository) could have set `core.fsmonitor`, `core.hooksPath`, filter or diff drivers, a
 * signing program, a receive-pack command... So every call here, on top of host-git's settings:
 *  - turns off each config key that names a program for the commands we run (`-c` wins over the
 *    repository's config and its includes): signing, ask-pass, alternate-refs, proxy, submodules;
 *  - reads no system or global config, runs with a minimal environment and no terminal prompt;
 *  - uses plumbing only (read-tree/hash-object/update-index on a temporary index outside the
 *    repository, write-tree, commit-tree, update-ref), so the user's work tree, index and HEAD are
 *    never written; hash-object always gets `--no-filters` (no clean filter, no eol conversion).
 */
export const PROJECT_GIT_CONFIG: readonly string[] = [
  ...SAFE_GIT_CONFIG,
  "commit.gpgSign=false",
  "gpg.program=false",
  "core.askPass=",
  "core.gitProxy=",
  "core.alternateRefsCommand=",
  "core.splitIndex=false",
  "submodule.recurse=false",
  "push.recurseSubmodules=no",
  "push.gpgSign=false",
  "index.threads=1",
];

export interface ProjectGitCall {
  gitDir: string;
  args: readonly string[];
  /** Bytes for stdin (or a stream of them). */
  input?: Buffer | NodeJS.ReadableStream;
  /** Added to the minimal environment (GIT_INDEX_FILE, author identity, ...). */
  env?: Record<string, string>;
  /** Extra `-c` settings placed after ours (a push's allowed protocols). */
  config?: readonly string[];
  timeoutMs?: number;
}

export class ProjectGitError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(`git ${args[0] ?? ""} failed: ${stderr.trim() || `exit code ${exitCode}`}`);
    this.name = "ProjectGitError";
  }
}

/** Runs git against a project's git dir with the settings above; resolves with stdout as bytes. */
export function runProjectGit(call: ProjectGitCall): Promise<Buffer> {
  const args = [
    ...[...PROJECT_GIT_CONFIG, ...(call.config ?? [])].flatMap((setting) => ["-c", setting]),
    "--no-pager",
    "--no-optional-locks",
    "--literal-pathspecs",
    `--git-dir=${call.gitDir}`,
    ...call.args,
  ];
  return new Promise((resolve, reject) => {
    const child = spawn("git", args, {
      cwd: call.gitDir,
      env: { ...safeGitEnvironment(), ...call.env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill("SIGKILL");
    }, call.timeoutMs ?? 60_000);
    child.stdout.on("data", (chunk: Buffer) => out.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => err.push(chunk));
    child.stdin.on("error", () => undefined); // git may exit before reading all of it; the exit code says why
    child.on("error", (error: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(
        error.code === "ENOENT"
          ? new AppError({
              code: "PRECONDITION_FAILED",
              message:
                "git is not installed on this host. Install git (for example apt-get install git) and try again.",
            })
          : error,
      );
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      const stderr = Buffer.concat(err).toString("utf8");
      if (code === 0) resolve(Buffer.concat(out));
      else reject(new ProjectGitError(call.args, timedOut ? `timed out; ${stderr}` : stderr, code));
    });
    const input = call.input;
    if (Buffer.isBuffer(input)) child.stdin.end(input);
    else if (input) input.pipe(child.stdin);
    else child.stdin.end();
  });
}

export async function projectGitText(call: ProjectGitCall): Promise<string> {
  return (await runProjectGit(call)).toString("utf8").trim();
}

/**
 * The git dir of a project folder that is the top of a git repository: `<root>/.git` as a directory,
 * or a `.git` file naming one (`gitdir: …`, a linked worktree or submodule). Null otherwise; a folder
 * inside someone else's repository is not one (its snapshot's paths would not be the repository's).
 */
export function projectGitDir(projectRoot: string): string | null {
  const dotGit = path.join(projectRoot, ".git");
  const stat = fs.lstatSync(dotGit, { throwIfNoEntry: false });
  if (!stat) return null;
  if (stat.isDirectory()) return fs.existsSync(path.join(dotGit, "HEAD")) ? dotGit : null;
  if (!stat.isFile() || stat.size > 4096) return null;
  const match = /^gitdir: (.+)$/m.exec(fs.readFileSync(dotGit, "utf8"));
  if (!match?.[1]) return null;
  const target = path.resolve(projectRoot, match[1].trim());
  return fs.statSync(path.join(target, "HEAD"), { throwIfNoEntry: false })?.isFile() ? target : null;
}

/**
 * The commit HEAD points at in a project's repository, or null when the folder is no git repository,
 * has no commit yet, or git cannot read it (recorded as "no commit": applying as a branch then says why).
 */
export async function projectHeadCommit(projectRoot: string): Promise<string | null> {
  const gitDir = projectGitDir(projectRoot);
  if (!gitDir) return null;
  try {
    const head = await projectGitText({ gitDir, args: ["rev-parse", "--verify", "--quiet", "HEAD^{commit}"] });
    return /^[0-9a-f]{40}$/.test(head) ? head : null;
  } catch {
    return null;
  }
}
