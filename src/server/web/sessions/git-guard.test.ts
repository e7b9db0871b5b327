import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { enforceGitGuard, snapshotGitGuard } from "./git-guard";
import { gitGuardMounts } from "./git-guard-paths";

const dirs: string[] = [];
const temp = (name: string) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `git-guard-${name}-`));
  dirs.push(dir);
  return dir;
};
afterEach(() => {
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function repo(): { projectDir: string; saveDir: string } {
  const projectDir = temp("project");
  const git = (...args: string[]) => execFileSync("git", args, { cwd: projectDir, stdio: "ignore" });
  git("init", "-q", "-b", "main");
  fs.writeFileSync(path.join(projectDir, "a.txt"), "a\n");
  git("add", "a.txt");
  git("-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-qm", "start");
  return { projectDir, saveDir: temp("save") };
}

const gitConfig = (projectDir: string, ...args: string[]) =>
  execFileSync("git", ["config", ...args], { cwd: projectDir, stdio: "ignore" });

describe("the git guard", () => {
  it("keeps a config change that runs nothing, and restores one that could", () => {
    const { projectDir, saveDir } = repo();
    const snapshot = snapshotGitGuard({ projectDir, saveDir });
    gitConfig(projectDir, "user.name", "Someone");
    gitConfig(projectDir, "remote.origin.url", "https://example.invalid/x.git");
    expect(enforceGitGuard({ snapshot, saveDir })).toEqual([]);
    gitConfig(projectDir, "core.sshCommand", "touch PWNED");
    expect(enforceGitGuard({ snapshot, saveDir })).toEqual(["restored .git/config"]);
    const config = fs.readFileSync(path.join(projectDir, ".git", "config"), "utf8");
    expect(config).not.toContain("sshCommand");
    expect(config).toContain("Someone");
  });

  it("removes planted hooks, commondir and the config of a submodule the index names", () => {
    const { projectDir, saveDir } = repo();
    const snapshot = snapshotGitGuard({ projectDir, saveDir });
    fs.writeFileSync(path.join(projectDir, ".git", "hooks", "pre-commit"), "#!/bin/sh\ntouch PWNED\n", { mode: 0o755 });
    // a nested repository registered as a submodule: git status on the host runs git inside it, with its config
    execFileSync("git", ["init", "-q", "sub"], { cwd: projectDir });
    gitConfig(path.join(projectDir, "sub"), "core.fsmonitor", "touch PWNED");
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: projectDir, encoding: "utf8" }).trim();
    execFileSync("git", ["update-index", "--add", "--cacheinfo", `160000,${head},sub`], { cwd: projectDir });
    fs.writeFileSync(path.join(projectDir, ".git", "commondir"), "../elsewhere\n");
    const undone = enforceGitGuard({ snapshot, saveDir });
    expect(undone.slice(0, 2)).toEqual(["removed .git/commondir", "removed .git/hooks/pre-commit"]);
    // the submodule's git dir was not there at the start: everything in it that git runs goes (its sample hooks too)
    expect(undone).toContain("removed sub/.git/config");
    expect(undone.filter((entry) => !entry.startsWith("removed sub/.git/"))).toHaveLength(2);
    expect(fs.existsSync(path.join(projectDir, "sub", ".git", "config"))).toBe(false);
    expect(fs.readdirSync(path.join(projectDir, "sub", ".git", "hooks"))).toEqual([]);
    expect(enforceGitGuard({ snapshot, saveDir })).toEqual([]);
  });

  it("never follows a symlink planted where a guarded folder was", () => {
    const { projectDir, saveDir } = repo();
    const outside = temp("outside");
    fs.writeFileSync(path.join(outside, "pre-push.sample"), "the user's own file\n");
    const snapshot = snapshotGitGuard({ projectDir, saveDir });
    const hooks = path.join(projectDir, ".git", "hooks");
    fs.rmSync(hooks, { recursive: true });
    fs.symlinkSync(outside, hooks);
    const undone = enforceGitGuard({ snapshot, saveDir });
    expect(undone).toContain("restored .git/hooks/pre-push.sample");
    expect(fs.lstatSync(hooks).isDirectory()).toBe(true);
    expect(fs.readFileSync(path.join(outside, "pre-push.sample"), "utf8")).toBe("the user's own file\n");
  });

  it("guards a worktree's .git pointer, and a repository made where there was none", () => {
    const { projectDir, saveDir } = repo();
    const linked = temp("linked");
    execFileSync("git", ["worktree", "add", "-q", path.join(linked, "wt")], { cwd: projectDir });
    const worktree = path.join(linked, "wt");
    const pointer = fs.readFileSync(path.join(worktree, ".git"), "utf8");
    const snapshot = snapshotGitGuard({ projectDir: worktree, saveDir });
    fs.writeFileSync(path.join(worktree, ".git"), "gitdir: ./evil\n");
    expect(enforceGitGuard({ snapshot, saveDir })).toEqual(["restored .git"]);
    expect(fs.readFileSync(path.join(worktree, ".git"), "utf8")).toBe(pointer);

    const plain = temp("plain");
    const plainSave = temp("save-plain");
    const none = snapshotGitGuard({ projectDir: plain, saveDir: plainSave });
    execFileSync("git", ["init", "-q"], { cwd: plain });
    gitConfig(plain, "core.fsmonitor", "touch PWNED");
    const undone = enforceGitGuard({ snapshot: none, saveDir: plainSave });
    expect(undone).toContain("removed .git/config");
    expect(fs.existsSync(path.join(plain, ".git", "config"))).toBe(false);
  });

  it("guards a hooks folder the config names in the tree, never trusting the session's new one", () => {
    const { projectDir, saveDir } = repo();
    fs.mkdirSync(path.join(projectDir, ".husky"));
    fs.writeFileSync(path.join(projectDir, ".husky", "pre-commit"), "npm test\n", { mode: 0o755 });
    fs.mkdirSync(path.join(projectDir, "src"));
    fs.writeFileSync(path.join(projectDir, "src", "main.js"), "the user's code\n");
    gitConfig(projectDir, "core.hooksPath", ".husky");
    const snapshot = snapshotGitGuard({ projectDir, saveDir });
    fs.writeFileSync(path.join(projectDir, ".husky", "pre-commit"), "touch PWNED\n");
    fs.writeFileSync(path.join(projectDir, ".husky", "post-checkout"), "touch PWNED\n", { mode: 0o755 });
    gitConfig(projectDir, "core.hooksPath", "src");
    expect(enforceGitGuard({ snapshot, saveDir })).toEqual([
      "restored .git/config",
      "removed .husky/post-checkout",
      "restored .husky/pre-commit",
    ]);
    expect(fs.readFileSync(path.join(projectDir, ".husky", "pre-commit"), "utf8")).toBe("npm test\n");
    expect(fs.readFileSync(path.join(projectDir, "src", "main.js"), "utf8")).toBe("the user's code\n");
  });

  it("leaves the user's own nested repository that a new gitlink names, and removes a new pointer file", async () => {
    const { projectDir, saveDir } = repo();
    execFileSync("git", ["init", "-q", "vendor/lib"], { cwd: projectDir });
    gitConfig(path.join(projectDir, "vendor", "lib"), "user.name", "Mine");
    await new Promise((resolve) => setTimeout(resolve, 50));
    const snapshot = snapshotGitGuard({ projectDir, saveDir });
    const head = execFileSync("git", ["rev-parse", "HEAD"], { cwd: projectDir, encoding: "utf8" }).trim();
    const gitlink = (at: string) =>
      execFileSync("git", ["update-index", "--add", "--cacheinfo", `160000,${head},${at}`], { cwd: projectDir });
    gitlink("vendor/lib");
    expect(enforceGitGuard({ snapshot, saveDir })).toEqual([]);
    expect(fs.existsSync(path.join(projectDir, "vendor", "lib", ".git", "config"))).toBe(true);
    // a submodule whose pointer sends git to a folder of the tree: the pointer goes
    fs.mkdirSync(path.join(projectDir, "sub"));
    fs.writeFileSync(path.join(projectDir, "sub", ".git"), "gitdir: ../vendor/lib/.git\n");
    gitlink("sub");
    expect(enforceGitGuard({ snapshot, saveDir })).toEqual(["removed sub/.git"]);
  });

  it("mounts .git on its own and what git runs read-only, only where it exists", () => {
    const { projectDir } = repo();
    const mounts = gitGuardMounts(projectDir).map((mount) => `${mount.containerPath}${mount.readOnly ? " ro" : ""}`);
    expect(mounts).toEqual([
      "/workspace/.git",
      "/workspace/.git/config ro",
      "/workspace/.git/hooks ro",
      "/workspace/.git/info ro",
    ]);
    expect(gitGuardMounts(temp("no-git"))).toEqual([]);
  });
});
