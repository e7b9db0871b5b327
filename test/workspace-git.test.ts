import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { HOST_GIT_CONFIG_TEMPLATE } from "../src/server/core/snapshots/host-git";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import type { StudyView, TrialView } from "../src/shared/study-schemas";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  redisUrlFor,
  REPO_ROOT,
  removeImages,
  tempDir,
  waitForStudy,
  type StudyWeb,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";

/**
 * A workspace's `.git` is the agent's. Here the agent — a command in the trial container, and the real
 * Codex binary scripted through the mock model — sets
 * core.fsmonitor, core.pager, diff.external, core.hooksPath with hooks, filter and textconv drivers
 * (named by a .gitattributes), an include, and a nested repository with its own fsmonitor, each to a
 * command that creates a marker file on the host. The trial then goes through everything the product
 * does with a workspace (diff, review, patch, downloads, transcript, apply, undo, the reports) and the
 * commands docs/security.md gives for inspecting a workspace: no marker may appear. A plain `git
 * status` in the tree's nested repository, the control, does run the agent's fsmonitor: the host-facing git
 * dir is what keeps the host safe, and the tree's own .git is put back to a template after the run.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 4);
const runtime = createDockerRuntime();
const MARKERS = tempDir("pwned");
const marker = (name: string) => path.join(MARKERS, name);
/** `#` ends the command: git appends its own arguments to these through `sh -c`. */
const touch = (name: string) => `touch ${marker(name)} #`;

const HOSTILE_GIT = [
  "set -e",
  `git config core.fsmonitor '${touch("fsmonitor")}'`,
  `git config core.pager '${touch("pager")}'`,
  `git config diff.external '${touch("external-diff")}'`,
  `git config filter.evil.clean '${touch("filter-clean")}'`,
  `git config filter.evil.smudge '${touch("filter-smudge")}'`,
  `git config filter.evil.required true`,
  `git config diff.evil.textconv '${touch("textconv")}'`,
  `git config core.hooksPath .git/evil-hooks`,
  "mkdir -p .git/evil-hooks .git/hooks",
  ...["pre-commit", "post-checkout", "post-index-change", "reference-transaction", "fsmonitor-watchman"].flatMap(
    (hook) => [
      `printf '#!/bin/sh\\ntouch ${marker(`hook-${hook}`)}\\n' > .git/evil-hooks/${hook}`,
      `cp .git/evil-hooks/${hook} .git/hooks/${hook}`,
      `chmod +x .git/evil-hooks/${hook} .git/hooks/${hook}`,
    ],
  ),
  `printf '[core]\\n\\tfsmonitor = ${touch("included")}\\n' > .git/extra.config`,
  "git config include.path extra.config",
  `printf '* filter=evil diff=evil\\n' > .gitattributes`,
  "mkdir -p nested && git -C nested init -q",
  `git -C nested config core.fsmonitor '${touch("nested-fsmonitor")}'`,
  "echo 'export const touched = true;' >> src/calendar.js",
].join("\n");

/** The same by the real Codex binary, scripted through the mock model: it writes the script and runs it. */
const HOSTILE_GIT_CODEX = {
  description: "Plants programs in its workspace's git.",
  steps: [
    { kind: "write-file", path: "/tmp/hostile-git.sh", content: `${HOSTILE_GIT}\n` },
    { kind: "run", command: "sh /tmp/hostile-git.sh" },
    { kind: "reply", text: "Done." },
  ],
};

let dataDir: string;
let projectDir: string;
let stack: StudyStack | undefined;
let web: StudyWeb;
let projectId: string;
let study: StudyView;
let trial: TrialView;
let codexTrial: TrialView;

beforeAll(async () => {
  stack = await startStudyStack({
    name: "workspace-git",
    redisUrl: REDIS_URL,
    runtime,
    scripts: { "hostile-git": HOSTILE_GIT_CODEX },
    concurrency: 1,
    // what is checked here is a copy workspace's tree and its .git on the host (an overlay workspace has
    // no merged tree on the host; its git dir is checked by overlay-workspace.test.ts)
    workspaceKind: "copy",
  });
  ({ dataDir, web } = stack);
  projectDir = calendarProject();
  projectId = await addCalendarProject({ web, runtime, projectDir });
}, 300_000);

afterAll(async () => {
  await stack?.close();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

const markers = () => fs.readdirSync(MARKERS).sort();
const text = async (chunks: AsyncIterable<Buffer | string> | Iterable<Buffer | string>) => {
  let out = "";
  for await (const chunk of chunks) out += chunk.toString();
  return out;
};

/** The fenced block under "Inspecting a workspace safely" in docs/security.md, for workspace `dir`. */
function documentedCommands(dir: string): string {
  const doc = fs.readFileSync(path.join(REPO_ROOT, "docs", "security.md"), "utf8");
  const section = doc.slice(doc.indexOf("### Inspecting a workspace safely"));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? "";
  expect(block).toContain("wsgit status");
  return block.replace(/^WS=.*$/m, `WS='${dir}'`);
}

describe("an agent that plants programs in its workspace's git", () => {
  it("finishes a trial whose workspace .git is hostile, while the host-facing git dir keeps its template config", async () => {
    const created = await web.services.studies.create(
      {
        projectId,
        title: "Hostile git",
        taskPrompt: "Change the calendar.",
        testCommand: "node --test",
        testFiles: [{ source: "project", path: "test/calendar.test.js" }],
        configurations: [
          { harness: "command", model: "", reasoningEffort: "low", command: HOSTILE_GIT, repeats: 1 },
          { harness: "codex", model: "hostile-git", reasoningEffort: "low", repeats: 1 },
        ],
      },
      "admin",
    );
    study = await waitForStudy({
      web,
      studyId: created.id,
      until: (view) => view.state === "done" || view.state === "refused" || view.state === "stopped",
      timeoutMs: 170_000,
      what: "the study to finish",
    });
    const byHarness = (kind: string) =>
      study.trials.find(
        (candidate) => study.configurations.find((c) => c.id === candidate.configurationId)?.harness === kind,
      ) as TrialView;
    trial = byHarness("command");
    codexTrial = byHarness("codex");
    for (const each of [trial, codexTrial]) {
      expect(each.state).toBe("succeeded");
      const ws = dataDirPaths(dataDir).workspace(each.workspaceId ?? "");
      // after the run the tree's own .git is put back to the template too (defence in depth) …
      expect(fs.readFileSync(path.join(ws.tree, ".git", "config"), "utf8")).toBe(HOST_GIT_CONFIG_TEMPLATE);
      expect(fs.existsSync(path.join(ws.tree, ".git", "hooks"))).toBe(false);
      // … but a nested repository keeps what the agent wrote
      expect(fs.readFileSync(path.join(ws.tree, "nested", ".git", "config"), "utf8")).toContain(
        marker("nested-fsmonitor"),
      );
      expect(fs.readFileSync(path.join(ws.git, "config"), "utf8")).toBe(HOST_GIT_CONFIG_TEMPLATE);
    }
    expect(markers()).toEqual([]);
  });

  it("runs none of them through diff, review, patch, downloads, apply, undo or the reports", async () => {
    for (const each of [codexTrial, trial]) {
      const listed = await web.services.review.files({ trialId: each.id });
      expect(listed.items.map((item) => item.path)).toEqual([".gitattributes", "src/calendar.js"]);
    }
    const files = await web.services.review.files({ trialId: trial.id });
    for (const item of files.items) await web.services.review.file({ trialId: trial.id, pathKey: item.pathKey });
    await web.services.review.summary({ trialId: trial.id });
    await web.services.review.transcript({ trialId: trial.id });
    const patch = await text((await web.services.review.patch({ trialId: trial.id })).chunks);
    expect(patch).toContain("export const touched = true;");
    const side = await web.services.review.fileBytes({
      trialId: trial.id,
      pathKey: files.items[1]?.pathKey ?? "",
      side: "after",
    });
    await text(side.chunks);
    expect((await web.services.workspaces.diff({ workspaceId: trial.workspaceId ?? "" })).totals.files).toBe(2);
    const preview = await web.services.apply.previewTrial({ trialId: trial.id });
    expect(preview.conflicts).toEqual([]);
    const applied = await web.services.apply.runTrial({
      trialId: trial.id,
      planHash: preview.planHash,
      appliedBy: "t",
    });
    expect(applied.outcome).toBe("applied");
    expect(fs.readFileSync(path.join(projectDir, ".gitattributes"), "utf8")).toBe("* filter=evil diff=evil\n");
    // a new snapshot of the project (git read-tree on the snapshot's own git dir) sees the .gitattributes too
    await web.services.snapshots.create({ projectId });
    expect((await web.services.apply.undo({ recordId: applied.id, undoneBy: "t" })).outcome).toBe("undone");
    for (const format of ["md", "json", "csv"] as const)
      await web.services.studies.report({ studyId: study.id, format });
    expect(markers()).toEqual([]);
  });

  it("runs none of them through the documented commands for inspecting a workspace", () => {
    for (const each of [trial, codexTrial]) {
      const ws = dataDirPaths(dataDir).workspace(each.workspaceId ?? "");
      const run = spawnSync("bash", ["-c", documentedCommands(ws.dir)], { cwd: ws.tree, encoding: "utf8" });
      expect(run.stderr).toBe("");
      expect(run.status).toBe(0);
      expect(run.stdout).toContain("src/calendar.js");
      expect(run.stdout).toContain("+export const touched = true;");
    }
    expect(markers()).toEqual([]);
  });

  it("(control) a plain git status inside the tree's nested repository does run the agent's fsmonitor", () => {
    const ws = dataDirPaths(dataDir).workspace(trial.workspaceId ?? "");
    // safe.directory: the tree is the containers' user's, and a git run as root (these tests) refuses a
    // repository another user owns by itself; a host user running invariant-web as themself owns it and
    // gets no such protection, which is the case this control stands for
    execFileSync("git", ["-c", "safe.directory=*", "status", "--short"], {
      cwd: path.join(ws.tree, "nested"),
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: "/nonexistent",
        GIT_CONFIG_NOSYSTEM: "1",
        GIT_CONFIG_GLOBAL: "/dev/null",
      } as Record<string, string> as NodeJS.ProcessEnv,
      stdio: "pipe",
    });
    expect(markers()).toEqual(["nested-fsmonitor"]);
  });
});
