import os from "node:os";
import { AppError } from "../../core/errors/app-error";
import { ProjectGitError, projectGitText, runProjectGit } from "../../core/git/project-git";
import type { BranchPushView, GitRemoteView } from "../../../shared/branch-schemas";

/**
 * Pushing a result branch to one of the repository's remotes, chosen by the user. The push goes to the
 * remote's push URL as `git remote -v` resolves it, so no `remote.<name>.receivepack`, `.vcs` or helper of
 * the repository's config is used; only file paths, https/http and ssh URLs are allowed (protocol.allow),
 * there is no credential helper and no prompt (an https remote that needs a password fails, with git's
 * message), ssh runs in batch mode, and the receiving side of a local repository runs with its hooks and
 * fsmonitor off, as our own git does. It times out after two minutes.
 */
const PUSH_TIMEOUT_MS = 120_000;

type Transport = "file" | "http" | "ssh";

/** A URL with any user:password@ left out, for showing. */
function shownUrl(url: string): string {
  return url.replace(/^([a-z][a-z0-9+.-]*:\/\/)[^/@]*@/i, "$1");
}

export async function listRemotes(gitDir: string): Promise<GitRemoteView[]> {
  const text = await projectGitText({ gitDir, args: ["remote", "-v"] });
  const remotes = new Map<string, string>();
  for (const line of text.split("\n")) {
    const match = /^(\S+)\t(.*) \(push\)$/.exec(line);
    if (match?.[1] && match[2] !== undefined) remotes.set(match[1], match[2]);
  }
  return [...remotes].map(([name, url]) => ({ name, url }));
}

function transportOf(url: string): Transport | null {
  if (url.startsWith("/") || url.startsWith("file://")) return "file";
  if (/^https?:\/\//i.test(url)) return "http";
  if (/^ssh:\/\//i.test(url) || /^[A-Za-z0-9._-]+@[A-Za-z0-9.-]+:(?!\/\/)/.test(url)) return "ssh";
  return null;
}

function protocolConfig(transport: Transport): string[] {
  if (transport === "file") return ["protocol.file.allow=always"];
  if (transport === "http") return ["protocol.https.allow=always", "protocol.http.allow=always"];
  return ["protocol.ssh.allow=always", "core.sshCommand=ssh -o BatchMode=yes -o ConnectTimeout=20"];
}

/** The receiving git of a local repository: its hooks, fsmonitor and alternate-refs command off. */
const LOCAL_RECEIVE_PACK =
  "git -c core.hooksPath=/dev/null -c core.fsmonitor=false -c core.alternateRefsCommand=true receive-pack";

export async function pushBranch(options: { gitDir: string; remote: string; name: string }): Promise<BranchPushView> {
  const remotes = await listRemotes(options.gitDir);
  const found = remotes.find((remote) => remote.name === options.remote);
  if (!found)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "remote",
      message: `The repository has no remote "${options.remote}"${remotes.length ? ` (it has ${remotes.map((remote) => remote.name).join(", ")})` : " (it has none)"}. Add one with git remote add, or choose another.`,
    });
  const transport = transportOf(found.url);
  if (!transport)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "remote",
      message: `The remote ${found.name} (${shownUrl(found.url)}) is not a path, an https or an ssh URL, so invariant-web does not push to it. Push the branch yourself: git push ${found.name} ${options.name}`,
    });
  const ref = `refs/heads/${options.name}`;
  try {
    const out = await runProjectGit({
      gitDir: options.gitDir,
      config: protocolConfig(transport),
      // ssh finds its keys and known hosts in the home folder; git's own global config stays unread
      env: transport === "ssh" ? { HOME: os.homedir() } : {},
      args: [
        "push",
        "--porcelain",
        "--no-verify",
        "--no-signed",
        "--no-recurse-submodules",
        ...(transport === "file" ? [`--receive-pack=${LOCAL_RECEIVE_PACK}`] : []),
        found.url,
        `${ref}:${ref}`,
      ],
      timeoutMs: PUSH_TIMEOUT_MS,
    });
    return { remote: found.name, ok: true, output: out.toString("utf8").trim() };
  } catch (error) {
    if (!(error instanceof ProjectGitError)) throw error;
    return { remote: found.name, ok: false, output: error.stderr.trim() || error.message };
  }
}

export { shownUrl };
