import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { StudyView } from "../src/shared/study-schemas";
import { isAlive, launch, ROOT, signalProcess, type Launched } from "./support/launch";
import { remoteStack, type RemoteWorker } from "./support/remote-stack";
import { startSecondEngine, startTcpRedis, type SecondEngine } from "./support/second-engine";
import { calendarProject, FAKE_KEY, scriptsDir, startMock } from "./support/study-harness";
import { tempDir } from "./support/temp";

/**
 * Issue 17, point 1's acceptance on the real stack: the launcher (web process + its worker child, one job
 * slot) on a private Redis reached over loopback TCP, and a second worker "as if on another machine": its
 * own data dir, its own Docker engine (a second dockerd that starts with no image), reaching the web
 * process only over HTTP with a worker token and Redis over TCP. A study runs on both workers (the
 * environment image travels by docker save/load over HTTP); verdicts, diffs, review and apply work for
 * the trials of either; the remote worker killed (SIGKILL) mid-trial leaves its trial interrupted and a
 * retry runs on the local worker; its token revoked, its next request is refused at once and it stops.
 * "Continue a result" of the remote trial fetches its committed image from that worker (an image.send
 * job, docker save streamed to the worker API, docker load here); with that worker gone it is refused.
 */
const SLOW_TESTS = "sleep 8 && node --test";
/** Both agents first make a tool outside the workspace: it lives in their committed image, not in their files. */
const TOOL_STEP = {
  kind: "run",
  command: "printf '#!/bin/sh\\necho calendar-tool-works\\n' > /tmp/calendar-tool && chmod +x /tmp/calendar-tool",
};
type Script = { steps: { kind: string; path?: string; content?: string }[] };
const scriptOf = (name: string) =>
  JSON.parse(fs.readFileSync(path.join(ROOT, "mock-scripts", `${name}.json`), "utf8")) as Script;
const withTool = (name: string) => ({ ...scriptOf(name), steps: [TOOL_STEP, ...scriptOf(name).steps] });
let redis: Awaited<ReturnType<typeof startTcpRedis>>;
let engine: SecondEngine;
let mock: Awaited<ReturnType<typeof startMock>>;
let app: Launched;
let remote: RemoteWorker | null = null;
const remoteData = tempDir("remote-worker-data");
const started = Date.now();
/** Where the time goes (printed, not asserted: a busy 2-core machine varies a lot). */
const phase = (what: string) =>
  console.log(`remote worker acceptance: ${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);

beforeAll(async () => {
  [redis, engine, mock] = await Promise.all([
    startTcpRedis(),
    startSecondEngine(),
    startMock(
      scriptsDir({
        "calendar-fix-all": withTool("calendar-fix-all"),
        "calendar-fix-some": withTool("calendar-fix-some"),
      }),
    ),
  ]);
  app = await launch({
    dataDir: tempDir("remote-web"),
    args: ["--redis-url", redis.url],
    env: {
      OPENAI_API_KEY: FAKE_KEY,
      OPENAI_BASE_URL: mock.url,
      // Claude Code's and Gemini CLI's providers: the same mock (it answers only this key on every API)
      ANTHROPIC_API_KEY: FAKE_KEY,
      ANTHROPIC_BASE_URL: mock.rootUrl,
      GEMINI_API_KEY: FAKE_KEY,
      GOOGLE_GEMINI_BASE_URL: mock.rootUrl,
      INVARIANT_WORKER_CONCURRENCY: "1",
    },
  });
}, 120_000);

afterAll(async () => {
  if (remote && remote.child.exitCode === null) remote.child.kill("SIGKILL");
  await app?.stop("SIGTERM");
  await engine?.stop();
  await redis?.stop();
  await mock?.close();
}, 60_000);

const stack = remoteStack({
  app: () => app,
  engine: () => engine,
  redisUrl: () => redis.url,
  remote: () => remote,
  remoteData,
});
const { call, mutate, until, study, session, sessionContainer, hostImageId, startContinue } = stack;
const { startRemoteWorker, remoteOnline, readyProject, withLocalPaused } = stack;

const createStudy = (projectId: string, testCommand: string) =>
  mutate<{ id: string }>("studies.create", {
    projectId,
    title: "Two hosts",
    taskPrompt: "Make the calendar tests pass.",
    testCommand,
    testFiles: [{ source: "project", path: "test/calendar.test.js" }],
    concurrency: 2,
    configurations: [
      { harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 },
      { harness: "codex", model: "calendar-fix-some", reasoningEffort: "low", repeats: 1 },
    ],
  });

/** Files of a data dir that hold `secret` (the staged agent CLIs excepted: the key cannot be in a release binary). */
const filesHolding = (dir: string, secret: string) =>
  spawnSync("grep", ["-rlF", "--exclude-dir=package-files", secret, dir], { encoding: "utf8" }).stdout.trim();

/**
 * Claude Code and Gemini CLI trials on the remote worker (issue 27), with the local worker paused (SIGSTOP,
 * so both land there): the real CLIs in the second engine's containers, their requests relayed to the
 * dashboard's gateway, which puts the real key on (the mock answers no other) and meters each run. The
 * worker's data dir, its log and the committed images hold nothing of the key.
 */
async function agentsOnTheRemote(options: { projectId: string; remoteId: string }) {
  await withLocalPaused(async () => {
    const created = await mutate<{ id: string }>("studies.create", {
      projectId: options.projectId,
      title: "Claude Code and Gemini CLI on another host",
      taskPrompt: "Make the calendar tests pass.",
      testCommand: "node --test",
      testFiles: [{ source: "project", path: "test/calendar.test.js" }],
      concurrency: 2,
      configurations: [
        { harness: "claude-code", model: "calendar-fix-all", reasoningEffort: "low", repeats: 1 },
        { harness: "gemini-cli", model: "calendar-fix-some", reasoningEffort: "low", repeats: 1 },
      ],
    });
    const done = await until(
      "the agents' study",
      () => study(created.id),
      (s) => s.state === "done",
      300_000,
    );
    const harnessOf = new Map(done.configurations.map((c) => [c.id, c.harness]));
    const byHarness = new Map(done.trials.map((trial) => [harnessOf.get(trial.configurationId), trial]));
    const expected = [
      { harness: "claude-code", script: "calendar-fix-all", passed: 23 },
      { harness: "gemini-cli", script: "calendar-fix-some", passed: 13 },
    ];
    for (const { harness, script, passed } of expected) {
      const trial = byHarness.get(harness as never);
      expect(trial, harness).toMatchObject({
        workerId: options.remoteId,
        state: "succeeded",
        verdict: { passed, total: 23 },
      });
      // every model turn metered at the dashboard: the script's usage per step (the mock's answer)
      const { steps, usage } = withTool(script) as Script & { usage: { inputTokens: number; outputTokens: number } };
      expect(trial?.tokens, harness).toMatchObject({
        input: steps.length * usage.inputTokens,
        output: steps.length * usage.outputTokens,
      });
      const config = engine.docker(["image", "inspect", trial?.committedImageId ?? ""]).stdout;
      expect(config).not.toContain(FAKE_KEY);
    }
  });
  expect(filesHolding(remoteData, FAKE_KEY)).toBe("");
  expect(remote?.log()).not.toContain(FAKE_KEY);
}

/** A project whose tests need what its dependency step installs: a module, its bin link and a script. */
const GREETER_TEST = `const test = require("node:test");
const assert = require("node:assert");
const { execFileSync } = require("node:child_process");
test("the installed module answers", () => assert.equal(require("greeting")(), "hi"));
test("its bin link runs", () => assert.equal(execFileSync("node_modules/.bin/greet", { encoding: "utf8" }).trim(), "hi from greet"));
test("every installed file is there", () => assert.equal(require("node:fs").readdirSync("node_modules/greeting/lib").length, 300));
test("the task was done", () => assert.ok(require("node:fs").existsSync("done.txt")));
`;
const GREETER_STEP = [
  "mkdir -p node_modules/greeting/lib node_modules/.bin",
  "echo 'module.exports = () => \"hi\";' > node_modules/greeting/index.js",
  "printf '#!/bin/sh\\necho hi from greet\\n' > node_modules/greeting/cli.sh && chmod +x node_modules/greeting/cli.sh",
  "ln -s ../greeting/cli.sh node_modules/.bin/greet",
  "for i in $(seq 1 300); do head -c 20000 /dev/urandom > node_modules/greeting/lib/part-$i.bin; done",
].join(" && ");

/** The greeter project, its environment ready and its dependency step installed (version 2), on the dashboard host. */
async function greeterProject(): Promise<string> {
  const dir = tempDir("remote-greeter");
  fs.mkdirSync(path.join(dir, "test"));
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "greeter", "version": "1.0.0" }\n');
  fs.writeFileSync(path.join(dir, "test", "greet.test.js"), GREETER_TEST);
  const projectId = await readyProject(dir);
  await mutate("dependencies.setStep", {
    projectId,
    step: { kind: "command", command: GREETER_STEP, outputs: ["node_modules"], manifests: ["package.json"] },
  });
  await mutate("dependencies.install", { projectId });
  await until(
    "the installed dependencies",
    () => call<{ versions: { version: number; status: string }[] }>("environments.overview", { projectId }),
    (overview) => overview.versions.some((v) => v.version === 2 && v.status !== "building"),
    300_000,
  ).then((overview) => expect(overview.versions.find((v) => v.version === 2)?.status).toBe("ready"));
  return projectId;
}

/** A study of the greeter: a command configuration does the task; its tests need the installed dependencies. */
async function greeterStudy(projectId: string) {
  const created = await mutate<{ id: string }>("studies.create", {
    projectId,
    title: "Installed dependencies",
    taskPrompt: "Leave done.txt.",
    testCommand: "node --test",
    testFiles: [{ source: "project", path: "test/greet.test.js" }],
    concurrency: 2,
    configurations: [{ harness: "command", model: "", reasoningEffort: "low", command: "touch done.txt", repeats: 2 }],
  });
  const done = await until(
    "the greeter study",
    () => study(created.id),
    (s) => s.state === "done",
    300_000,
  );
  const rows = await Promise.all(
    done.trials.map((trial) => call<{ name: string; status: string }[]>("studies.trialTests", { trialId: trial.id })),
  );
  return { done, rows: rows.map((r) => r.map(({ name, status }) => ({ name, status }))) };
}

/**
 * Issue 29, point 1: a project with a dependency step, studied on the remote worker, gives the verdicts and
 * per-test rows it gives on the dashboard host: its installed dependencies (300 files, a bin link, an
 * executable) are fetched once and mounted as overlays there; the second trial fetches nothing.
 */
async function dependenciesOnTheRemote(options: {
  projectId: string;
  remoteId: string;
  local: Awaited<ReturnType<typeof greeterStudy>>;
}) {
  const fetches = () => remote?.log().match(/fetched installed dependencies deps-[0-9a-f]{24} \(\d+ files/g) ?? [];
  expect(fetches()).toEqual([]);
  const onRemote = await withLocalPaused(() => greeterStudy(options.projectId));
  expect(onRemote.done.trials.map((t) => [t.workerId, t.state, t.verdict?.passed, t.verdict?.total])).toEqual([
    [options.remoteId, "succeeded", 4, 4],
    [options.remoteId, "succeeded", 4, 4],
  ]);
  expect(onRemote.rows).toEqual(options.local.rows);
  expect(onRemote.done.baseline).toEqual(options.local.done.baseline);
  expect(fetches()).toHaveLength(1); // the second trial found them here
  console.log(`remote worker acceptance: ${/fetched installed dependencies .*/.exec(remote?.log() ?? "")?.[0] ?? ""}`);
}

/** A process's peak resident memory so far (VmHWM), in MiB. */
const peakRssMiB = (pid: number) =>
  Math.round(Number(/VmHWM:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024);
const sentImages = () => (remote?.log().match(/sent image [0-9a-f]{12} \(\d+ MiB\)/g) ?? []).length;

/**
 * Continue the remote trial's result on the dashboard host: the call answers at once with the session
 * fetching the image from the worker that keeps it; the image arrives under the same id, and a command in
 * the session finds the tool its agent made (from the image) and the file it wrote (from the workspace).
 * A second continue finds the image here and fetches nothing.
 */
async function continueRemoteResult(options: { projectId: string; trial: StudyView["trials"][number]; model: string }) {
  const imageId = options.trial.committedImageId ?? "";
  const fetching = await startContinue(options.projectId, options.trial.id);
  expect(fetching.state).toBe("starting");
  expect(fetching.reason).toMatch(
    /^Fetching the trial's result image [0-9a-f]{12} from \S+ \(the worker there ran the trial/,
  );
  expect(fetching.workspaceId).toBeNull(); // copied once the image is here
  const running = await until(
    "the continued session",
    () => session(fetching.id),
    (s) => s.state !== "starting",
    180_000,
  );
  expect(running).toMatchObject({ state: "running", reason: null, fromTrialId: options.trial.id });
  expect(hostImageId(imageId)).toBe(imageId);
  expect(sentImages()).toBe(1);
  console.log(`remote worker acceptance: ${/sent image .*/.exec(remote?.log() ?? "")?.[0] ?? ""}`);
  const container = sessionContainer(fetching.id);
  const seen = spawnSync("docker", ["exec", container, "sh", "-c", "/tmp/calendar-tool && cat src/calendar.js"], {
    encoding: "utf8",
  });
  expect(seen.stdout.split("\n")[0]).toBe("calendar-tool-works");
  const written = scriptOf(options.model).steps.find((step) => step.path === "src/calendar.js")?.content;
  expect(seen.stdout.slice("calendar-tool-works\n".length)).toBe(written);
  await mutate("sessions.finish", { sessionId: fetching.id });
  // moved before: the second continue starts at once from the image here
  const again = await startContinue(options.projectId, options.trial.id);
  expect(again.reason).toBeNull();
  expect(again.workspaceId).not.toBeNull();
  await until(
    "the second session",
    () => session(again.id),
    (s) => s.state === "running",
    60_000,
  );
  expect(sentImages()).toBe(1);
  await mutate("sessions.finish", { sessionId: again.id });
}

/** With the worker that keeps the image gone, a continue ends at once with what was wrong; nothing is left. */
async function refusedWithoutItsWorker(options: { projectId: string; trial: StudyView["trials"][number] }) {
  const imageId = options.trial.committedImageId ?? "";
  expect(spawnSync("docker", ["rmi", imageId], { encoding: "utf8" }).status).toBe(0); // as if never moved
  const fetching = await startContinue(options.projectId, options.trial.id);
  const ended = await until(
    "the refusal",
    () => session(fetching.id),
    (s) => s.state === "finished",
    60_000,
  );
  expect(ended.reason).toMatch(
    new RegExp(
      `^Could not start: Could not fetch trial ${options.trial.id}'s result image [0-9a-f]{12} from \\S+: no worker of that host is online\\. Start its worker there .* or start a private-copy session`,
    ),
  );
  expect(ended.workspaceId).toBeNull();
  expect(ended.endedAt).not.toBeNull();
  expect(sessionContainer(fetching.id)).toBe("");
  expect(hostImageId(imageId)).toBe("");
}

describe("a worker on another machine (own data dir, own Docker engine, HTTP and Redis over TCP only)", () => {
  it("runs trials beside the local worker, continues a result here with its image fetched from it, is interrupted by SIGKILL, and is refused once its token is revoked", async () => {
    // the worker token: created on the System page's API, shown once, kept in a file of mode 600
    const created = await mutate<{ token: string; worker: { id: string } }>("system.createWorkerToken", {
      name: "second-engine",
    });
    const tokenFile = path.join(tempDir("remote-token"), "token");
    fs.writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
    expect(engine.docker(["images", "-q"]).stdout.trim()).toBe(""); // the second engine starts empty
    // the greeter's dependencies are installed (a dependency step: the dashboard host's job) and studied here first
    const greeterId = await greeterProject();
    const greeterLocally = await greeterStudy(greeterId);
    expect(greeterLocally.done.trials.map((t) => [t.state, t.verdict?.passed, t.verdict?.total])).toEqual([
      ["succeeded", 4, 4],
      ["succeeded", 4, 4],
    ]);
    expect(greeterLocally.done.baseline).toMatchObject({ passed: 3, total: 4 });
    phase("greeter studied on the dashboard host");
    remote = startRemoteWorker(tokenFile);
    const remoteId = await remoteOnline();
    expect(remote.log()).toContain('as worker "second-engine"');

    // the environment build is the dashboard host's job: the remote worker hands it back
    const projectDir = calendarProject();
    const projectId = await readyProject(projectDir);
    phase("environment ready");
    const first = await createStudy(projectId, "node --test");
    const done = await until(
      "study 1",
      () => study(first.id),
      (s) => s.state === "done",
      240_000,
    );
    phase("study 1 done");
    const modelOf = new Map(done.configurations.map((c) => [c.id, c.harness === "codex" ? c.model : ""]));
    const byModel = new Map(done.trials.map((trial) => [modelOf.get(trial.configurationId), trial]));
    if (done.trials.some((trial) => trial.state !== "succeeded"))
      console.log(JSON.stringify(done.trials.map((t) => [t.workerId, t.state, t.error])), remote.log().slice(-4000));
    const fixAll = byModel.get("calendar-fix-all");
    const fixSome = byModel.get("calendar-fix-some");
    expect(fixAll).toMatchObject({ state: "succeeded", verdict: { passed: 23, total: 23 } });
    expect(fixSome).toMatchObject({ state: "succeeded", verdict: { passed: 13, total: 23 } });
    // one trial on each worker (one job slot each, concurrency 2)
    const workers = done.trials.map((trial) => trial.workerId);
    expect(workers).toContain(remoteId);
    expect(workers.some((id) => id !== remoteId)).toBe(true);
    const remoteTrial = done.trials.find((trial) => trial.workerId === remoteId);
    const localTrial = done.trials.find((trial) => trial.workerId !== remoteId);
    if (!remoteTrial || !localTrial) throw new Error("expected a trial on each worker");
    // the environment image travelled over HTTP (docker save / docker load) into the second engine
    expect(remote.log()).toMatch(/loaded image [0-9a-f]{12}/);
    expect(remote.log()).toMatch(/fetched snapshot [0-9a-f]{12}/);
    // the committed image stays on the second engine, and the trial says where
    expect(remoteTrial.committedImageId).toMatch(/^sha256:/);
    expect(engine.docker(["image", "inspect", remoteTrial.committedImageId ?? ""]).status).toBe(0);
    expect(spawnSync("docker", ["image", "inspect", remoteTrial.committedImageId ?? ""]).status).not.toBe(0);
    expect(remoteTrial.imageHost).not.toBeNull();
    expect(localTrial.imageHost).toBeNull();

    // review and diffs: the same for both, read from workspaces in the web process's data dir
    for (const trial of [remoteTrial, localTrial]) {
      const files = await call<{ items: { path: string }[]; total: number }>("review.files", { trialId: trial.id });
      expect(files.items.map((item) => item.path)).toEqual(["src/calendar.js"]);
      expect(trial.diff?.files).toBe(1);
      // per-test rows, delivered with the evaluation
      expect(await call<unknown[]>("studies.trialTests", { trialId: trial.id })).toHaveLength(23);
    }
    // apply the remote trial's result (fix-all) to the project: its tests now pass on the host
    const plan = await call<{ planHash: string }>("applies.previewTrial", { trialId: fixAll?.id });
    const applied = await mutate<{ id: string; outcome: string }>("applies.runTrial", {
      trialId: fixAll?.id,
      planHash: plan.planHash,
    });
    expect(applied.outcome).toBe("applied");
    const hostRun = spawnSync("node", ["--test", "test/"], { cwd: projectDir, encoding: "utf8" });
    expect(hostRun.stdout).toMatch(/# pass 23/);
    await mutate("applies.undo", { recordId: applied.id });
    const other = await call<{ planHash: string }>("applies.previewTrial", { trialId: fixSome?.id });
    await mutate("applies.runTrial", { trialId: fixSome?.id, planHash: other.planHash });
    expect(spawnSync("node", ["--test", "test/"], { cwd: projectDir, encoding: "utf8" }).stdout).toMatch(/# pass 13/);

    // the model credential never leaves the dashboard: the remote trial's model requests went through its gateway
    const credential = await fetch(`${app.base}/api/worker/credential`, {
      headers: { authorization: `Bearer ${created.token}` },
    });
    expect(credential.status).toBe(403);
    expect(await credential.text()).not.toContain(FAKE_KEY);

    phase("review and apply checked");
    await agentsOnTheRemote({ projectId, remoteId });
    phase("Claude Code and Gemini CLI trials done on the remote worker");
    await dependenciesOnTheRemote({ projectId: greeterId, remoteId, local: greeterLocally });
    phase("greeter studied on the remote worker with its installed dependencies");
    const peakBefore = peakRssMiB(app.child.pid ?? -1);
    await continueRemoteResult({
      projectId,
      trial: remoteTrial,
      model: modelOf.get(remoteTrial.configurationId) ?? "",
    });
    // printed, not asserted: the upload is streamed into docker load, so the web process's peak barely moves
    phase(`remote result continued here (web process peak RSS ${peakBefore} → ${peakRssMiB(app.child.pid ?? -1)} MiB)`);
    // SIGKILL the remote worker mid-trial: its trial is interrupted, a retry runs on the local worker
    const second = await createStudy(projectId, SLOW_TESTS);
    const running = await until(
      "a trial running on the remote worker",
      () => study(second.id),
      (s) => s.trials.some((t) => t.workerId === remoteId && t.state === "evaluating"),
      180_000,
    );
    const victim = running.trials.find((t) => t.workerId === remoteId)?.id ?? "";
    signalProcess(remote.child.pid, "SIGKILL");
    phase("remote worker killed");
    await remote.exited;
    const interrupted = await until(
      "the interruption",
      () => study(second.id),
      (s) => s.state === "done",
      120_000,
    );
    const trial = interrupted.trials.find((t) => t.id === victim);
    expect(trial?.state).toBe("interrupted");
    expect(trial?.error).toMatch(/^Interrupted: /);
    await mutate("studies.retry", { studyId: second.id, trialIds: [victim] });
    const retried = await until(
      "the retry",
      () => study(second.id),
      (s) => s.state === "done" && s.trials.find((t) => t.id === victim)?.attempt === 2,
      180_000,
    );
    phase("retry done");
    const again = retried.trials.find((t) => t.id === victim);
    expect(again?.state).toBe("succeeded");
    expect(again?.workerId).not.toBe(remoteId);
    await refusedWithoutItsWorker({ projectId, trial: remoteTrial });
    phase("continue refused without its worker");

    // revoke its token: the restarted worker's next request is refused at once, it says so and stops
    remote = startRemoteWorker(tokenFile);
    await remoteOnline();
    await mutate("system.revokeWorkerToken", { id: created.worker.id });
    const refused = await fetch(`${app.base}/api/worker/hello`, {
      headers: { authorization: `Bearer ${created.token}` },
    });
    expect(refused.status).toBe(401);
    const code = await Promise.race([
      remote.exited,
      new Promise((resolve) => setTimeout(() => resolve("alive"), 30_000)),
    ]);
    expect(code).not.toBe("alive");
    expect(remote.log()).toMatch(
      /the dashboard refused this worker's token: The worker token "second-engine" was revoked/,
    );
    expect(isAlive(remote.child.pid ?? -1)).toBe(false);
    phase("revoked and stopped");
  }, 600_000);
});
