import { execFileSync } from "node:child_process";
import path from "node:path";

/**
 * Settings of a git config that make git run nothing: who commits, remotes and branches, the repository's
 * format and checkout switches, colours and the like. Everything else — core.fsmonitor, core.hooksPath,
 * core.sshCommand, core.pager, core.editor, diff.external, filter/diff/merge drivers, `alias.*`,
 * include.path, includeIf, credential helpers, submodule update commands, protocol and url rewrites,
 * and any key git learns later — counts as able to run a program. An allow-list, so a key we did not
 * think of is never taken for harmless.
 */
const HARMLESS = [
  /^user\.(name|email)$/,
  /^core\.(repositoryformatversion|filemode|bare|logallrefupdates|ignorecase|precomposeunicode|symlinks|autocrlf|eol|safecrlf|quotepath|abbrev|compression|checkstat|trustctime|untrackedcache|splitindex|preloadindex|sparsecheckout|sparsecheckoutcone)$/,
  /^remote\..+\.(url|pushurl|fetch|push|mirror|prune|tagopt)$/,
  /^branch\..+\.(remote|merge|rebase|pushremote|description)$/,
  /^submodule\..+\.(url|active|branch)$/,
  /^(init\.defaultbranch|pull\.(rebase|ff)|push\.(default|autosetupremote|followtags)|fetch\.(prune|prunetags))$/,
  /^(merge\.(ff|conflictstyle)|rebase\.(autostash|autosquash)|status\.(showuntrackedfiles|short|branch)|rerere\.enabled)$/,
  /^(color|column|advice)\.[a-z.]+$/,
  /^extensions\.(objectformat|refstorage|partialclone|preciousobjects)$/,
];

/**
 * The settings of a config file that could make git run a program, as sorted `key=value` lines; null when
 * git cannot read the file (then any change to it counts). Read by `git config --file --no-includes`,
 * which runs nothing the file names.
 */
export function executableSettings(file: string): string[] | null {
  const settings = settingsOf(file);
  if (!settings) return null;
  return settings
    .filter(({ key }) => !HARMLESS.some((pattern) => pattern.test(key)))
    .map(({ key, value }) => `${key}=${value}`)
    .sort();
}

/**
 * Files and folders outside the git directory that a config makes git run or read as config: a hooks
 * folder of the tree (`core.hooksPath = .husky`) and included files (`include.path = ../.gitconfig`).
 * Relative to `projectDir`; only those inside it (what a session can write).
 */
export function treePathsNamed(options: { file: string; projectDir: string }): { hooks: string[]; includes: string[] } {
  const found = { hooks: [] as string[], includes: [] as string[] };
  for (const { key, value } of settingsOf(options.file) ?? []) {
    const isHooks = key === "core.hookspath";
    if ((!isHooks && !/^include(if\..*)?\.path$/.test(key)) || value.startsWith("~")) continue;
    // git takes a relative hooks path from the worktree, an included one from the including file's folder
    const full = path.resolve(isHooks ? options.projectDir : path.dirname(options.file), value);
    const relative = path.relative(options.projectDir, full);
    if (relative === "" || relative.startsWith("..") || path.isAbsolute(relative)) continue;
    (isHooks ? found.hooks : found.includes).push(relative);
  }
  return found;
}

function settingsOf(file: string): { key: string; value: string }[] | null {
  let listing: string;
  try {
    listing = execFileSync("git", ["config", "--file", file, "--no-includes", "--list", "-z"], {
      encoding: "utf8",
      maxBuffer: 16 * 1024 * 1024,
      stdio: ["ignore", "pipe", "ignore"],
      env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", GIT_CONFIG_GLOBAL: "/dev/null" },
    });
  } catch {
    return null;
  }
  return listing
    .split("\0")
    .filter(Boolean)
    .map((entry) => {
      const newline = entry.indexOf("\n");
      return newline < 0
        ? { key: entry, value: "" }
        : { key: entry.slice(0, newline), value: entry.slice(newline + 1) };
    });
}
