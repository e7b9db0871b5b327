import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { projectHeadCommit } from "../src/server/core/git/project-git";
import { createDiffCache } from "../src/server/web/review/diff-cache";
import { trialPatch } from "../src/server/web/review/trial-patch";
import { appRouter } from "../src/server/web/trpc/app-router";
import { createCallerFactory } from "../src/server/web/trpc/init";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import { listTree } from "./support/file-trees";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  redisUrlFor,
  tempDir,
  waitForStudy,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";

/**
 * Apply as a branch on a real study (the calendar fixture as a git repository, the scripted model through
 * the real Codex binary): the branch's one commit is exactly the trial's patch (the product's own patch
 * applied to the snapshot's commit gives the branch's tree), the user's work tree, index and HEAD are
 * byte-identical before and after, a push lands in a local bare remote, every refusal says why, and a
 * hostile repository config (fsmonitor, hooks, filters, signing, receive-pack) runs nothing.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 34);
const runtime = createDockerRuntime();
const createCaller = createCallerFactory(appRouter);
const BINARY_AFTER = "\\000\\001\\002binary\\377\\376";

const MIXED = {
  description:
    "Changes of every kind: a new file in a new folder, a mode change, a deletion, a retargeted symlink, a new symlink, a binary file.",
  usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 },
  steps: [
    { kind: "write-file", path: "src/extra/new-file.js", content: "export const added = true;\n" },
    {
      kind: "run",
      command: `chmod +x tools/run.sh && rm docs/old.txt && ln -sfn README.md src/link-old && ln -s ../src/calendar.js tools/new-link && printf '${BINARY_AFTER}' > assets/logo.bin`,
    },
    { kind: "reply", text: "Done." },
  ],
};
const DIRTY = {
  description: "Edits README.md, which had uncommitted changes when the study started.",
  usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 },
  steps: [
    { kind: "write-file", path: "README.md", content: "# Rewritten\n" },
    { kind: "reply", text: "Done." },
  ],
};

/** git for the test's own reading, with hooks, fsmonitor and drivers off (the hostile config is only in place around the product's calls). */
function git(cwd: string, args: string[], env: Record<string, string> = {}): string {
  return execFileSync("git", ["-c", "core.hooksPath=/dev/null", "-c", "core.fsmonitor=false", ...args], {
    cwd,
    encoding: "latin1",
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: "/nonexistent",
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: "/dev/null",
      ...env,
    } as unknown as NodeJS.ProcessEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

/** The error a refused call threw: its tRPC code and message. */
async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    const { code, message } = error as { code?: unknown; message?: unknown };
    return { code: String(code), message: String(message) };
  }
  throw new Error("the call was not refused");
}

let stack: StudyStack;
let projectDir: string;
let bareRemote: string;
let headAtStudy: string;
let study: StudyView;
const trialOf: Record<"mixed" | "dirty" | "none", TrialView> = {} as never;
const marker = () => path.join(path.dirname(projectDir), "MARKER");

const admin = () => createCaller({ identity: { role: "admin", subject: "admin" }, services: stack.web.services });
const viewer = () => createCaller({ identity: { role: "viewer", subject: "link" }, services: stack.web.services });

function initRepository(dir: string): void {
  fs.mkdirSync(path.join(dir, "tools"), { recursive: true });
  fs.mkdirSync(path.join(dir, "docs"), { recursive: true });
  fs.mkdirSync(path.join(dir, "assets"), { recursive: true });
  fs.writeFileSync(path.join(dir, "tools", "run.sh"), "#!/bin/sh\necho run\n", { mode: 0o644 });
  fs.writeFileSync(path.join(dir, "docs", "old.txt"), "old\n");
  fs.writeFileSync(path.join(dir, "assets", "logo.bin"), Buffer.from([0, 255, 1, 254, 2, 253]));
  fs.symlinkSync("calendar.js", path.join(dir, "src", "link-old"));
  git(dir, ["init", "-q", "-b", "main"]);
  git(dir, ["add", "-A"]);
  git(dir, ["-c", "user.name=Someone", "-c", "user.email=someone@example.invalid", "commit", "-q", "-m", "calendar"]);
  // uncommitted work when the study starts: README.md edited (the dirty trial touches it), an untracked file
  fs.appendFileSync(path.join(dir, "README.md"), "\nA local edit, not committed.\n");
  fs.writeFileSync(path.join(dir, "untracked.txt"), "not in git\n");
}

/** What must not change: the work tree (everything but .git), the index's bytes, HEAD's bytes and main. */
function userState() {
  return {
    tree: listTree(projectDir, { skip: (rel) => rel === ".git" || rel.startsWith(".git/") }),
    index: fs.readFileSync(path.join(projectDir, ".git", "index")).toString("base64"),
    head: fs.readFileSync(path.join(projectDir, ".git", "HEAD"), "latin1"),
    main: git(projectDir, ["rev-parse", "refs/heads/main"]),
    status: git(projectDir, ["status", "--porcelain=v1", "-z", "--untracked-files=all"]),
  };
}

/** Runs `action` with a repository config, hooks and attributes that would each write the marker if git ran them. */
async function withHostileConfig<T>(action: () => Promise<T>): Promise<T> {
  const evil = path.join(path.dirname(projectDir), "evil.sh");
  fs.writeFileSync(evil, `#!/bin/sh\necho "$0 $*" >> ${marker()}\ncat >/dev/null\nexit 1\n`, { mode: 0o755 });
  const hooks = path.join(path.dirname(projectDir), "evil-hooks");
  fs.mkdirSync(hooks, { recursive: true });
  const hookNames = [
    "pre-commit",
    "post-commit",
    "reference-transaction",
    "pre-push",
    "post-index-change",
    "fsmonitor-watchman",
    "pre-receive",
    "update",
    "post-receive",
    "post-update",
    "proc-receive",
    "push-to-checkout",
  ];
  for (const name of hookNames) {
    fs.copyFileSync(evil, path.join(hooks, name));
    fs.chmodSync(path.join(hooks, name), 0o755);
  }
  const hostile = `[core]\n\tfsmonitor = ${evil}\n\thooksPath = ${hooks}\n\tsshCommand = ${evil}\n\taskPass = ${evil}\n\tpager = ${evil}\n\talternateRefsCommand = ${evil}\n[commit]\n\tgpgSign = true\n[gpg]\n\tprogram = ${evil}\n[filter "evil"]\n\tclean = ${evil}\n\tsmudge = ${evil}\n\tprocess = ${evil}\n\trequired = true\n[diff "evil"]\n\ttextconv = ${evil}\n\tcommand = ${evil}\n[diff]\n\texternal = ${evil}\n[push]\n\tgpgSign = true\n\trecurseSubmodules = on-demand\n[remote "origin"]\n\treceivepack = ${evil}\n\tuploadpack = ${evil}\n`;
  const files = [
    { file: path.join(projectDir, ".git", "config"), add: hostile },
    { file: path.join(projectDir, ".git", "info", "attributes"), add: "* filter=evil diff=evil\n" },
    {
      file: path.join(bareRemote, "config"),
      add: `[core]\n\tfsmonitor = ${evil}\n\thooksPath = ${hooks}\n\talternateRefsCommand = ${evil}\n`,
    },
  ];
  const saved = files.map(({ file }) => (fs.existsSync(file) ? fs.readFileSync(file) : null));
  for (const { file, add } of files) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.appendFileSync(file, add);
  }
  for (const dir of [path.join(projectDir, ".git", "hooks"), path.join(bareRemote, "hooks")]) {
    fs.mkdirSync(dir, { recursive: true });
    for (const name of hookNames) fs.copyFileSync(evil, path.join(dir, name));
  }
  try {
    return await action();
  } finally {
    files.forEach(({ file }, index) => {
      const before = saved[index];
      if (before) fs.writeFileSync(file, before);
      else fs.rmSync(file, { force: true });
    });
    for (const dir of [path.join(projectDir, ".git", "hooks"), path.join(bareRemote, "hooks")])
      for (const name of hookNames) fs.rmSync(path.join(dir, name), { force: true });
  }
}

/** The product's patch of a trial (the review's download). */
async function productPatch(trial: TrialView): Promise<string> {
  const diff = await createDiffCache({ dataDir: stack.dataDir }).get({
    workspaceId: trial.workspaceId ?? "",
    stamp: "1",
    live: false,
  });
  let text = "";
  for await (const chunk of trialPatch({ dataDir: stack.dataDir, diff, preamble: ["test"] })) text += chunk;
  return text;
}

beforeAll(async () => {
  stack = await startStudyStack({
    name: "result-branches",
    redisUrl: REDIS_URL,
    runtime,
    scripts: { "branch-mixed": MIXED, "branch-dirty": DIRTY },
    concurrency: 3,
  });
  projectDir = calendarProject();
  initRepository(projectDir);
  bareRemote = tempDir("branches-remote");
  git(bareRemote, ["init", "-q", "--bare"]);
  git(projectDir, ["remote", "add", "origin", bareRemote]);
  git(projectDir, ["remote", "add", "broken", path.join(bareRemote, "missing.git")]);
  headAtStudy = git(projectDir, ["rev-parse", "HEAD"]).trim();
  const projectId = await addCalendarProject({ web: stack.web, runtime, projectDir });
  const codex = (model: string) => ({ harness: "codex" as const, model, reasoningEffort: "low" as const, repeats: 1 });
  const created = await stack.web.services.studies.create(
    {
      projectId,
      title: "Fix the calendar: branches!",
      taskPrompt: "Implement every function in src/calendar.js so that the tests pass.\nKeep the API as it is.",
      testCommand: "node --test",
      testFiles: [{ source: "project" as const, path: "test/calendar.test.js" }],
      concurrency: 3,
      configurations: [codex("branch-mixed"), codex("branch-dirty"), codex("calendar-fix-none")],
    },
    "admin",
  );
  study = await waitForStudy({
    web: stack.web,
    studyId: created.id,
    until: (s) => s.state === "done",
    timeoutMs: 150_000,
  });
  const byModel = (model: string) =>
    study.trials.find(
      (t) => study.configurations.find((c) => c.id === t.configurationId)?.model === model,
    ) as TrialView;
  trialOf.mixed = byModel("branch-mixed");
  trialOf.dirty = byModel("branch-dirty");
  trialOf.none = byModel("calendar-fix-none");
}, 240_000);

afterAll(async () => {
  await stack?.close();
});

describe("the study's snapshot commit", () => {
  it("is the project's HEAD when the study was created", async () => {
    const row = await stack.web.db.study.findUniqueOrThrow({ where: { id: study.id } });
    expect(row.snapshotCommit).toBe(headAtStudy);
  });

  it("is null for a folder that is no repository or has no commit", async () => {
    const plain = tempDir("branches-plain");
    expect(await projectHeadCommit(plain)).toBeNull();
    git(plain, ["init", "-q"]);
    expect(await projectHeadCommit(plain)).toBeNull();
  });
});

describe("Apply as a branch", () => {
  let branchName = "";
  let commit = "";

  it("previews the branch name and the remotes", async () => {
    const preview = await admin().branches.preview({ trialId: trialOf.mixed.id });
    expect(preview.name).toBe("invariant/fix-the-calendar-branches-1.1");
    expect(preview.baseCommit).toBe(headAtStudy);
    expect(preview.problem).toBeNull();
    expect(preview.remotes.map((remote) => remote.name).sort()).toEqual(["broken", "origin"]);
    branchName = preview.name;
  });

  it("makes one commit of exactly the trial's changes, pushes it, touches nothing of the user's, runs nothing", async () => {
    const before = userState();
    const result = await withHostileConfig(() =>
      admin().branches.create({ trialId: trialOf.mixed.id, remote: "origin" }),
    );
    expect(userState()).toEqual(before);
    expect(fs.existsSync(marker()), fs.existsSync(marker()) ? fs.readFileSync(marker(), "utf8") : "").toBe(false);
    commit = result.branch.commit;
    expect(result.push).toMatchObject({ remote: "origin", ok: true });
    expect(result.branch).toMatchObject({
      name: branchName,
      baseCommit: headAtStudy,
      remote: "origin",
      trialName: "Trial 1.1",
    });
    expect(result.branch.pushedAt).not.toBeNull();
    // one commit on the snapshot's commit, with the trailers and the fixed identity
    expect(git(projectDir, ["rev-parse", `${commit}^`]).trim()).toBe(headAtStudy);
    expect(git(projectDir, ["rev-parse", `refs/heads/${branchName}`]).trim()).toBe(commit);
    const message = git(projectDir, ["log", "-1", "--format=%an <%ae>|%cn <%ce>%n%B", commit]);
    expect(message).toContain("invariant-web <invariant-web@localhost>|invariant-web <invariant-web@localhost>");
    expect(message).toContain("Implement every function in src/calendar.js so that the tests pass.");
    expect(message).toMatch(/Trial 1\.1 of the study "Fix the calendar: branches!" \(.+\): \d+\/23 tests passed/);
    expect(git(projectDir, ["log", "-1", "--format=%(trailers:key=Invariant-Trial,valueonly)", commit]).trim()).toBe(
      trialOf.mixed.id,
    );
    expect(message).toContain(`Invariant-Study: ${study.id}\nInvariant-Trial: ${trialOf.mixed.id}`);
    // exactly the trial's changes: its changed paths, and the product's patch on the base commit gives the branch's tree
    const changed = git(projectDir, [
      "diff",
      "--no-ext-diff",
      "--no-textconv",
      "--name-only",
      "-z",
      headAtStudy,
      commit,
    ])
      .split("\0")
      .filter(Boolean)
      .sort();
    expect(changed).toEqual([
      "assets/logo.bin",
      "docs/old.txt",
      "src/extra/new-file.js",
      "src/link-old",
      "tools/new-link",
      "tools/run.sh",
    ]);
    const patchFile = path.join(tempDir("branches-patch"), "trial.patch");
    fs.writeFileSync(patchFile, await productPatch(trialOf.mixed), "latin1");
    const index = path.join(path.dirname(patchFile), "index");
    git(projectDir, ["read-tree", headAtStudy], { GIT_INDEX_FILE: index });
    git(projectDir, ["apply", "--cached", "--binary", patchFile], { GIT_INDEX_FILE: index });
    expect(git(projectDir, ["write-tree"], { GIT_INDEX_FILE: index }).trim()).toBe(
      git(projectDir, ["rev-parse", `${commit}^{tree}`]).trim(),
    );
    // modes, symlinks and bytes as the workspace has them
    const entries = git(projectDir, ["ls-tree", "-r", commit, "--", "tools", "src/link-old", "assets"]);
    expect(entries).toMatch(/^100755 blob \S+\ttools\/run\.sh$/m);
    expect(entries).toMatch(/^120000 blob \S+\ttools\/new-link$/m);
    expect(entries).toMatch(/^120000 blob \S+\tsrc\/link-old$/m);
    expect(git(projectDir, ["cat-file", "blob", `${commit}:src/link-old`])).toBe("README.md");
    expect(Buffer.from(git(projectDir, ["cat-file", "blob", `${commit}:assets/logo.bin`]), "latin1")).toEqual(
      Buffer.from([0, 1, 2, ...Buffer.from("binary"), 0o377, 0o376]),
    );
    // the push landed in the bare remote, whose hooks did not run either
    expect(git(bareRemote, ["rev-parse", `refs/heads/${branchName}`]).trim()).toBe(commit);
  });

  it("is listed with the project's history, for viewers too", async () => {
    const list = await viewer().branches.list({ projectId: study.projectId });
    expect(list.map((branch) => [branch.name, branch.commit, branch.remote])).toEqual([[branchName, commit, "origin"]]);
    expect(await viewer().branches.list({ projectId: study.projectId, trialId: trialOf.dirty.id })).toEqual([]);
    expect((await refusal(viewer().branches.create({ trialId: trialOf.mixed.id }))).code).toBe("FORBIDDEN");
  });

  it("refuses a branch that exists, a trial without changes, and a file with uncommitted changes in the snapshot", async () => {
    const refs = () => git(projectDir, ["for-each-ref", "--format=%(refname) %(objectname)"]);
    const before = refs();
    {
      const refused = await refusal(admin().branches.create({ trialId: trialOf.mixed.id }));
      expect(refused.code).toBe("CONFLICT");
      expect(refused.message).toContain(`The branch ${branchName} already exists`);
    }
    {
      const refused = await refusal(admin().branches.create({ trialId: trialOf.none.id }));
      expect(refused.code).toBe("PRECONDITION_FAILED");
      expect(refused.message).toContain("changed no files");
    }
    {
      const refused = await refusal(admin().branches.create({ trialId: trialOf.dirty.id }));
      expect(refused.code).toBe("PRECONDITION_FAILED");
      expect(refused.message).toMatch(
        /^README\.md had uncommitted changes when the study started.*Use Apply to project/,
      );
    }
    expect((await refusal(admin().branches.create({ trialId: trialOf.mixed.id, remote: "nowhere" }))).code).toBe(
      "BAD_REQUEST",
    );
    expect(refs()).toBe(before);
    expect(await stack.web.db.resultBranch.count()).toBe(1);
  });

  it("refuses when the study has no snapshot commit, or the folder is no repository", async () => {
    await stack.web.db.study.update({ where: { id: study.id }, data: { snapshotCommit: null } });
    try {
      const refused = await refusal(admin().branches.create({ trialId: trialOf.dirty.id }));
      expect(refused.code).toBe("PRECONDITION_FAILED");
      expect(refused.message).toContain("This study's snapshot has no commit");
      expect((await admin().branches.preview({ trialId: trialOf.dirty.id })).problem).toContain("no commit");
    } finally {
      await stack.web.db.study.update({ where: { id: study.id }, data: { snapshotCommit: headAtStudy } });
    }
    fs.renameSync(path.join(projectDir, ".git"), path.join(projectDir, ".git-away"));
    try {
      const refused = await refusal(admin().branches.create({ trialId: trialOf.dirty.id }));
      expect(refused.code).toBe("PRECONDITION_FAILED");
      expect(refused.message).toContain("is not a git repository");
    } finally {
      fs.renameSync(path.join(projectDir, ".git-away"), path.join(projectDir, ".git"));
    }
  });

  it("removes the branch only while it is where it was made; the row keeps removedAt", async () => {
    const [made] = await admin().branches.list({ projectId: study.projectId });
    const id = made?.id ?? "";
    // someone committed on it: refused, left as it is
    git(projectDir, ["update-ref", `refs/heads/${branchName}`, headAtStudy, commit]);
    {
      const refused = await refusal(withHostileConfig(() => admin().branches.remove({ branchId: id })));
      expect(refused.code).toBe("CONFLICT");
      expect(refused.message).toContain("moved since it was made");
    }
    expect(git(projectDir, ["rev-parse", `refs/heads/${branchName}`]).trim()).toBe(headAtStudy);
    git(projectDir, ["update-ref", `refs/heads/${branchName}`, commit, headAtStudy]);
    const before = userState();
    const removed = await withHostileConfig(() => admin().branches.remove({ branchId: id }));
    expect(userState()).toEqual(before);
    expect(removed.removedAt).not.toBeNull();
    expect(git(projectDir, ["for-each-ref", `refs/heads/${branchName}`])).toBe("");
    expect((await refusal(admin().branches.remove({ branchId: id }))).code).toBe("CONFLICT");
    expect(fs.existsSync(marker())).toBe(false);
  });

  it("makes it again after removal; a failed push keeps the branch and says why", async () => {
    const result = await withHostileConfig(() =>
      admin().branches.create({ trialId: trialOf.mixed.id, remote: "broken" }),
    );
    expect(result.push).toMatchObject({ remote: "broken", ok: false });
    expect(result.push?.output).toMatch(/does not appear to be a git repository|not a git repository|Could not read/i);
    expect(result.branch).toMatchObject({ remote: null, pushedAt: null });
    // the same changes, so the same tree (the commit differs by its date only if a second passed)
    expect(git(projectDir, ["rev-parse", `${result.branch.commit}^{tree}`])).toBe(
      git(projectDir, ["rev-parse", `${commit}^{tree}`]),
    );
    const list = await admin().branches.list({ projectId: study.projectId });
    expect(list.map((branch) => branch.removedAt === null)).toEqual([true, false]);
    expect(fs.existsSync(marker())).toBe(false);
  });
});
