import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runApplyCommand } from "../src/cli/apply-command";
import { cliFailureSchema, cliResultSchema, type CliCommandName, type CliData } from "../src/cli/cli-schemas";
import { parseCli } from "../src/cli/config";
import { runWorkflowCommand } from "../src/cli/workflow-commands";
import { createRequestHandler } from "../src/server/web/http/request-handler";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  removeImages,
  REPO_ROOT,
  tempDir,
} from "./support/study-harness";
import { startStudyStack, type StudyStack } from "./support/study-stack";

/**
 * Issue 13, point 3 on the real stack (web side behind the product's HTTP handler, a worker, Codex in
 * containers, the scripted mock model): a whole study driven from a JSON file by the CLI's workflow
 * commands, every --json output checked against the documented schemas (src/cli/cli-schemas.ts).
 */
const runtime = createDockerRuntime();
const ADMIN_TOKEN = "a_admintokenadmintokenadmintoken00"; // openStudyWeb's

let redis: PrivateRedis | undefined;
let stack: StudyStack | undefined;
let server: http.Server | undefined;
let projectId = "";
let projectDir = "";

beforeAll(async () => {
  redis = await startPrivateRedis({ dataDir: tempDir("cli-workflow-redis") });
  stack = await startStudyStack({ name: "cli-workflow", redisUrl: redis.url, runtime, scripts: {}, concurrency: 2 });
  projectDir = calendarProject();
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir });
  server = http.createServer();
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const handler = createRequestHandler({
    services: stack.web.services,
    guard: { bindHost: "127.0.0.1", port, allowedHosts: [] },
    displayAddress: `127.0.0.1:${port}`,
    handleNext: (_req, res) => Promise.resolve(void res.end("page")),
    log: () => undefined,
  });
  server.on("request", (req: http.IncomingMessage, res: http.ServerResponse) => void handler(req, res));
  // what a running launcher leaves in its data dir: its pid (a live process other than this one) and URL, the admin token
  const paths = dataDirPaths(stack.dataDir);
  fs.writeFileSync(paths.launcherFile, JSON.stringify({ pid: process.ppid, url: `http://127.0.0.1:${port}` }));
  fs.writeFileSync(paths.accessTokenFile, `${ADMIN_TOKEN}\n`);
}, 300_000);

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await stack?.close();
  await redis?.stop();
  if (projectId) removeImages(`invariant-trial/${projectId.toLowerCase()}`);
});

/** Runs one CLI command in this process, as `invariant-web ARGS --data-dir DIR` would. */
async function cli(args: string[]) {
  let stdout = "";
  let stderr = "";
  const config = parseCli([...args, "--data-dir", stack?.dataDir ?? ""], {});
  const io = { out: (text: string) => (stdout += text), err: (text: string) => (stderr += text), isTTY: false };
  const code =
    config.command === "apply"
      ? await runApplyCommand({ config, root: REPO_ROOT, out: io.out, err: io.err })
      : await runWorkflowCommand({ config, io, pollMs: 200 });
  return { code, stdout, stderr };
}

/** Runs a command with --json and parses its envelope with the command's documented schema. */
async function json<C extends CliCommandName>(command: C, args: string[], expectedCode = 0) {
  const result = await cli([...args, "--json"]);
  expect(result.code, `${result.stderr}${result.stdout.slice(0, 1500)}`).toBe(expectedCode);
  const envelope: unknown = cliResultSchema(command).parse(JSON.parse(result.stdout));
  return (envelope as { data: CliData<C> }).data;
}

async function failure(args: string[]) {
  const result = await cli([...args, "--json"]);
  if (result.code === 0) throw new Error(`expected a failure: ${result.stdout}`);
  return { code: result.code, stderr: result.stderr, ...cliFailureSchema.parse(JSON.parse(result.stdout)) };
}

function writeFile(name: string, content: unknown): string {
  const file = path.join(tempDir("cli-study-file"), name);
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content, null, 2));
  return file;
}

const STUDY = {
  project: "calendar",
  title: "Calendar from the CLI",
  taskPrompt: "Implement every function in src/calendar.js so that the tests pass.",
  testCommand: "node --test",
  testFiles: [{ source: "project", path: "test/calendar.test.js" }],
  configurations: [
    { model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 },
    { model: "calendar-fix-none", reasoningEffort: "low", repeats: 1 },
  ],
};

describe("the workflow from the CLI", () => {
  it("refuses bad study files with errors that name the field, and sends nothing", async () => {
    const bad = await failure([
      "study",
      "create",
      "--file",
      writeFile("bad.json", { ...STUDY, title: "", configurations: [{ model: "calendar-fix-all", repeats: 0 }] }),
    ]);
    expect(bad).toMatchObject({ code: 2, ok: false, error: { kind: "usage", exitCode: 2, field: "title" } });
    expect(bad.error.fieldErrors?.["configurations.0.repeats"]).toEqual(["At least 1 repeat."]);
    expect(bad.stderr).toContain("configurations.0.repeats: At least 1 repeat.");

    const noProject = await failure([
      "study",
      "create",
      "--file",
      writeFile("p.json", { ...STUDY, project: undefined }),
    ]);
    expect(noProject.error).toMatchObject({ kind: "usage", field: "projectId" });
    expect(noProject.error.fieldErrors?.projectId?.[0]).toContain('"project": "my-app"');

    const unknownProject = await failure([
      "study",
      "create",
      "--file",
      writeFile("u.json", { ...STUDY, project: "x" }),
    ]);
    expect(unknownProject.error).toMatchObject({ kind: "refused", code: "NOT_FOUND" });
    expect(unknownProject.error.message).toContain('No project "x". Known projects: calendar');

    const yaml = await failure(["study", "create", "--file", writeFile("s.yaml", "title: [unclosed\n")]);
    expect(yaml.error).toMatchObject({ kind: "usage", exitCode: 2 });
    expect(yaml.error.message).toContain("is not valid YAML");

    expect((await json("study list", ["study", "list"])).studies).toEqual([]);
  });

  it("drives a study from a JSON file: create → wait → show → diff → choose → apply --trial", async () => {
    const created = await json("study create", ["study", "create", "--file", writeFile("study.json", STUDY)]);
    expect(created.study).toMatchObject({ projectId, state: "preflight", title: STUDY.title });
    expect(created.study.configurations.map((c) => [c.choice, c.model, c.repeats])).toEqual([
      [1, "calendar-fix-all", 1],
      [2, "calendar-fix-none", 1],
    ]);

    // --timeout 0 gives up at the first look: the preflight alone takes longer (containers)
    const early = await failure(["study", "wait", "--last", "--timeout", "0"]);
    expect(early.error).toMatchObject({ kind: "timeout", exitCode: 4 });

    const following = cli(["study", "follow", created.study.id, "--json"]);
    const waited = await json("study wait", ["study", "wait", "--last", "--timeout", "600"]);
    expect(waited.study).toMatchObject({ id: created.study.id, state: "done", refusal: null });
    const lines = (await following).stdout.trim().split("\n");
    const events = lines.map((line) => cliResultSchema("study follow").parse(JSON.parse(line)).data);
    expect(events.length).toBeGreaterThan(1);
    expect(events.at(-1)).toMatchObject({ event: "end", study: { state: "done" } });
    expect(events.slice(0, -1).every((event) => event.event === "progress")).toBe(true);

    const { study } = await json("study show", ["study", "show", "--last"]);
    expect(study.baseline).toMatchObject({ passed: 0, total: 23 });
    const verdicts = study.trials.map((t) => [t.choice, `${t.verdict?.passed}/${t.verdict?.total}`]);
    expect(verdicts).toEqual([
      [1, "23/23"],
      [2, "0/23"],
    ]);
    const best = study.trials.find((t) => t.choice === 1);
    if (!best) throw new Error("no trial of configuration 1");

    const diff = await json("trial diff", ["trial", "diff", best.id]);
    expect(diff.files.map((file) => [file.path, file.status])).toEqual([["src/calendar.js", "modified"]]);
    expect(diff.patch).toContain("+++ b/src/calendar.js");
    const log = await json("trial log", ["trial", "log", best.id]);
    expect(log.text.length).toBeGreaterThan(0);

    const chosen = await json("study choose", ["study", "choose", "--last", "--trial", best.id, "--note", "all pass"]);
    expect(chosen.study.chosen).toMatchObject({ trialId: best.id, note: "all pass" });

    const preview = await json("apply", ["apply", "--trial", best.id]);
    expect(preview).toMatchObject({ result: null, preview: { trialId: best.id, conflicts: [] } });
    expect(preview.preview.steps).toEqual([{ path: "src/calendar.js", action: "modify" }]);
    const before = fs.readFileSync(path.join(projectDir, "src/calendar.js"), "utf8");
    const applied = await json("apply", ["apply", "--trial", best.id, "--yes"]);
    expect(applied.result).toMatchObject({ outcome: "applied", trialId: best.id, appliedBy: "admin" });
    expect(fs.readFileSync(path.join(projectDir, "src/calendar.js"), "utf8")).not.toBe(before);
  }, 660_000);

  it("lists, shows, exports and refuses with the documented shapes and exit codes", async () => {
    const { projects } = await json("project list", ["project", "list"]);
    expect(projects.map((p) => p.name)).toEqual(["calendar"]);
    const shown = await json("project show", ["project", "show", "--last"]);
    expect(shown).toMatchObject({ project: { id: projectId }, environment: { version: 1, status: "ready" } });
    expect(shown.studies).toHaveLength(1);

    const settings = await json("project settings", ["project", "settings", "calendar", "--set", "memoryBytes=2GiB"]);
    expect(settings).toMatchObject({ changed: ["memoryBytes"], project: { memoryBytes: 2 * 1024 ** 3 } });
    const badSetting = await failure(["project", "settings", "calendar", "--set", "pids=3"]);
    expect(badSetting.error).toMatchObject({ kind: "usage", field: "pids" });

    // a project whose folder moved: show says so, relink refuses a path that does not exist, then points it there
    const moved = `${projectDir}-moved`;
    fs.renameSync(projectDir, moved);
    const gone = await cli(["project", "show", "calendar"]);
    expect(gone.stdout).toContain(
      `\n  folder         missing: The folder ${projectDir} is gone. Relink the project to its new path, or remove it.\n`,
    );
    const nowhere = await failure(["project", "relink", `${moved}-nowhere`, "--project", "calendar"]);
    expect(nowhere.error).toMatchObject({ field: "hostPath" });
    expect(nowhere.error.message).toContain("does not exist. Check the spelling");
    const relinked = await json("project relink", ["project", "relink", moved, "--project", "calendar"]);
    expect(relinked.project).toMatchObject({ id: projectId, hostPath: moved });
    projectDir = moved;

    const human = await cli(["study", "show", "--last"]);
    expect(human.code).toBe(0);
    expect(human.stdout).toContain("  baseline   0/23\n");
    expect(human.stdout).toMatch(/ 1\.1 +succeeded +23\/23/);
    const line = await cli(["study", "follow", "--last"]);
    expect(line).toMatchObject({
      code: 0,
      stdout: expect.stringMatching(
        /^Calendar from the CLI \[done\] · baseline 0\/23 · 2 trials: 2 succeeded · Trial 1\.1 23\/23 Trial 2\.1 0\/23\n$/,
      ) as unknown,
    });

    const exported = await json("study export", ["study", "export", "--last", "--format", "json"]);
    expect(exported).toMatchObject({ format: "json", output: null, report: { schema: "invariant-web/study-report" } });

    const again = await failure(["study", "stop", "--last"]);
    expect(again).toMatchObject({ code: 3, error: { kind: "refused", code: "CONFLICT" } });
    const missing = await failure(["study", "show", "no-such-study"]);
    expect(missing).toMatchObject({ code: 3, error: { kind: "refused", code: "NOT_FOUND" } });
    const usage = await failure(["study", "frobnicate"]);
    expect(usage).toMatchObject({ code: 2, command: "study", error: { kind: "usage" } });
    expect((await cli(["study", "show"])).code).toBe(2); // neither an id nor --last
  });
});
