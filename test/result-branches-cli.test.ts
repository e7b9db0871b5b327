import { execFileSync } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { cliFailureSchema, cliResultSchema, type CliCommandName, type CliData } from "../src/cli/cli-schemas";
import { parseCli } from "../src/cli/config";
import { UsageError } from "../src/cli/usage-error";
import { runWorkflowCommand } from "../src/cli/workflow-commands";
import { createRequestHandler } from "../src/server/web/http/request-handler";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
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
 * `invariant-web branch create|list|remove` on the real stack behind the product's HTTP handler (as a running
 * launcher is reached): a branch made and pushed to a local bare remote, listed, removed, a refusal's exit
 * code, each --json envelope parsed with its documented schema; INVARIANT_BRANCH_AUTHOR parsed.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 35);
const ADMIN_TOKEN = "a_admintokenadmintokenadmintoken00"; // openStudyWeb's
const runtime = createDockerRuntime();

let stack: StudyStack;
let server: http.Server;
let projectDir: string;
let bareRemote: string;
let projectId = "";
let trialId = "";
let noChangesTrialId = "";

function git(cwd: string, args: string[]): string {
  return execFileSync("git", ["-c", "core.hooksPath=/dev/null", ...args], {
    cwd,
    encoding: "utf8",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
  });
}

async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const config = parseCli([...args, "--json", "--data-dir", stack.dataDir], {});
  const io = { out: (text: string) => (stdout += text), err: (text: string) => (stderr += text), isTTY: false };
  const code = await runWorkflowCommand({ config, io });
  return { code, stdout, stderr };
}

async function json<C extends CliCommandName>(command: C, args: string[]): Promise<CliData<C>> {
  const result = await cli(args);
  expect(result.code, `${result.stderr}${result.stdout.slice(0, 1500)}`).toBe(0);
  const envelope: unknown = cliResultSchema(command).parse(JSON.parse(result.stdout));
  return (envelope as { data: CliData<C> }).data;
}

beforeAll(async () => {
  stack = await startStudyStack({ name: "branches-cli", redisUrl: REDIS_URL, runtime, scripts: {}, concurrency: 2 });
  projectDir = calendarProject();
  git(projectDir, ["init", "-q", "-b", "main"]);
  git(projectDir, ["add", "-A"]);
  git(projectDir, ["-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-q", "-m", "calendar"]);
  bareRemote = tempDir("branches-cli-remote");
  git(bareRemote, ["init", "-q", "--bare"]);
  git(projectDir, ["remote", "add", "origin", bareRemote]);
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir });
  const codex = (model: string) => ({ harness: "codex" as const, model, reasoningEffort: "low" as const, repeats: 1 });
  const created = await stack.web.services.studies.create(
    {
      projectId,
      title: "CLI branches",
      taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
      testCommand: "node --test",
      testFiles: [{ source: "project" as const, path: "test/calendar.test.js" }],
      concurrency: 2,
      configurations: [codex("calendar-fix-all"), codex("calendar-fix-none")],
    },
    "admin",
  );
  const study = await waitForStudy({ web: stack.web, studyId: created.id, until: (s) => s.state === "done" });
  trialId = study.trials.find((trial) => trial.choice === 1)?.id ?? "";
  noChangesTrialId = study.trials.find((trial) => trial.choice === 2)?.id ?? "";
  server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const handler = createRequestHandler({
    services: stack.web.services,
    guard: { bindHost: "127.0.0.1", port, allowedHosts: [] },
    displayAddress: `127.0.0.1:${port}`,
    handleNext: (_req, res) => Promise.resolve(void res.end("page")),
    log: () => undefined,
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res));
  const paths = dataDirPaths(stack.dataDir);
  fs.writeFileSync(paths.launcherFile, JSON.stringify({ pid: process.ppid, url: `http://127.0.0.1:${port}` }));
  fs.writeFileSync(paths.accessTokenFile, `${ADMIN_TOKEN}\n`);
}, 240_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await stack?.close();
});

describe("invariant-web branch", () => {
  it("creates and pushes, lists, refuses with exit 3, and removes", async () => {
    const made = await json("branch create", ["branch", "create", "--trial", trialId, "--push", "origin"]);
    expect(made.branch.name).toBe("invariant/cli-branches-1.1");
    expect(made.push).toMatchObject({ remote: "origin", ok: true });
    expect(made.files).toBe(1);
    expect(git(bareRemote, ["rev-parse", `refs/heads/${made.branch.name}`]).trim()).toBe(made.branch.commit);
    expect(git(projectDir, ["diff", "--name-only", `${made.branch.baseCommit}..${made.branch.name}`]).trim()).toBe(
      "src/calendar.js",
    );

    const listed = await json("branch list", ["branch", "list", "--project", path.basename(projectDir)]);
    expect(listed.branches.map((branch) => [branch.id, branch.trialName])).toEqual([[made.branch.id, "Trial 1.1"]]);

    const refused = await cli(["branch", "create", "--trial", noChangesTrialId]);
    expect(refused.code).toBe(3);
    const failure = cliFailureSchema.parse(JSON.parse(refused.stdout));
    expect(failure.error).toMatchObject({ kind: "refused", code: "PRECONDITION_FAILED" });
    expect(failure.error.message).toContain("changed no files");

    const removed = await json("branch remove", ["branch", "remove", made.branch.id]);
    expect(removed.branch.removedAt).not.toBeNull();
    expect(git(projectDir, ["branch", "--list", made.branch.name])).toBe("");
  });

  it("takes the commits' identity from INVARIANT_BRANCH_AUTHOR, and refuses one that is not Name <email>", () => {
    expect(parseCli(["start"], { INVARIANT_BRANCH_AUTHOR: "CI Bot <ci@example.com>" }).branchAuthor).toEqual({
      name: "CI Bot",
      email: "ci@example.com",
    });
    expect(parseCli(["start"], {}).branchAuthor).toBeNull();
    expect(() => parseCli(["start"], { INVARIANT_BRANCH_AUTHOR: "just a name" })).toThrow(UsageError);
    expect(() => parseCli(["branch", "create", "--push"], {})).toThrow(UsageError);
  });
});
