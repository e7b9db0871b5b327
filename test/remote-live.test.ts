import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SessionView } from "../src/shared/session-schemas";
import type { TranscriptView } from "../src/shared/review-schemas";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { BIN, cleanEnv, launch, ROOT, type Launched } from "./support/launch";
import { remoteStack } from "./support/remote-stack";
import { startTcpRedis } from "./support/second-engine";
import { calendarProject, FAKE_KEY, scriptsDir, startMock } from "./support/study-harness";
import { tempDir } from "./support/temp";

/**
 * Issue 29, point 3 ("remote trials are live"), on the real stack: the launcher (web process, no worker child)
 * on a Redis over loopback TCP, a worker beside it sharing its data dir for the environment build only, and a
 * worker "on another host" (`--dashboard-url`, a worker token, its own data dir, one job slot). It shares the
 * dashboard's Docker engine to keep the run short; nothing of what is checked goes through that engine: the
 * trial's log is written in the remote worker's data dir, and a continue only asks for an image the dashboard's
 * engine lacks (the test removes it first).
 *   - a running remote trial's log tail (the study page's `studies.trialLog`, and the download) shows its lines
 *     while the agent still runs a slow command, then equals the worker's delivered log, no line twice;
 *   - its transcript (recorded events) is live too, and its changes say they come with the results;
 *   - a continue of an earlier remote trial asks that worker for its image while its only job slot runs the
 *     slow trial: the transfer slot takes the request at once (its worker answers), long before the trial ends.
 */
/** Under Codex's 10 s wait for a command's output (a longer one goes on in the background); twice, one after the other. */
const SLOW = "sleep 8";
/** The log's line for a command: `$ ` and what Codex ran (its shell wraps the script's command). */
const commandLine = (text: string, command: string) =>
  text.split("\n").find((line) => line.startsWith("$ ") && line.includes(command)) ?? null;
const SCRIPTS = {
  "live-quick": {
    usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 },
    steps: [
      { kind: "run", command: "echo quick-result > quick.txt" },
      { kind: "reply", text: "Done." },
    ],
  },
  "live-slow": {
    usage: { inputTokens: 100, cachedInputTokens: 0, outputTokens: 10, reasoningTokens: 0 },
    steps: [
      { kind: "run", command: "echo live-marker-one" },
      { kind: "run", command: SLOW },
      { kind: "run", command: SLOW },
      { kind: "run", command: "echo live-marker-two" },
      { kind: "reply", text: "Finished the slow work." },
    ],
  },
};
let redis: Awaited<ReturnType<typeof startTcpRedis>>;
let mock: Awaited<ReturnType<typeof startMock>>;
let app: Launched;
const webData = tempDir("live-web");
const remoteData = tempDir("live-remote-data");
type Child = { child: ChildProcess; log: () => string; exited: Promise<number | null> };
const children: Child[] = [];
const started = Date.now();
const phase = (what: string) => console.log(`remote live: ${what} at ${((Date.now() - started) / 1000).toFixed(1)} s`);

beforeAll(async () => {
  [redis, mock] = await Promise.all([startTcpRedis(), startMock(scriptsDir(SCRIPTS))]);
  app = await launch({
    dataDir: webData,
    args: ["--redis-url", redis.url, "--no-worker"],
    env: { OPENAI_API_KEY: FAKE_KEY, OPENAI_BASE_URL: mock.url },
  });
}, 120_000);

afterAll(async () => {
  for (const { child } of children) if (child.exitCode === null) child.kill("SIGKILL");
  await app?.stop("SIGTERM");
  await redis?.stop();
  await mock?.close();
}, 60_000);

const stack = remoteStack({
  app: () => app,
  engine: () => {
    throw new Error("this test's workers share the dashboard's engine");
  },
  redisUrl: () => redis.url,
  remote: () => children.at(-1) ?? null,
  remoteData,
});
const { call, mutate, until, study } = stack;
const trialLog = (trialId: string) =>
  call<{ text: string; truncated: boolean }>("studies.trialLog", { trialId, tailBytes: 64 * 1024 });

/** `invariant-web worker`: beside the dashboard (its data dir), or on "another host" (own data dir, its token). */
function startWorker(options: { tokenFile?: string }): Child {
  const env: NodeJS.ProcessEnv = { ...cleanEnv(), CODEX_HOME: tempDir("live-codex-home") };
  const remote = options.tokenFile
    ? ["--dashboard-url", app.base, "--worker-token-file", options.tokenFile, "--data-dir", remoteData]
    : ["--data-dir", webData];
  // the remote worker holds no credential: its trials' model requests go through the dashboard's gateway
  if (options.tokenFile) for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL"]) delete env[name];
  const child = spawn(process.execPath, [BIN, "worker", "--redis-url", redis.url, "--concurrency", "1", ...remote], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  let log = "";
  child.stderr?.on("data", (chunk: Buffer) => (log += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const started = { child, log: () => log, exited };
  children.push(started);
  return started;
}

const online = (worker: Child) =>
  until(
    "a worker online",
    () => Promise.resolve(/worker (\S+) online/.exec(worker.log())?.[1] ?? null),
    (id) => id !== null,
    60_000,
  ) as Promise<string>;

const createStudy = (projectId: string, model: string) =>
  mutate<{ id: string }>("studies.create", {
    projectId,
    title: model,
    taskPrompt: "Do the work.",
    testCommand: "node --test",
    testFiles: [{ source: "project", path: "test/calendar.test.js" }],
    concurrency: 1,
    configurations: [{ harness: "codex", model, reasoningEffort: "low", repeats: 1 }],
  });

const dockerImage = (args: string[]) => spawnSync("docker", ["image", ...args], { encoding: "utf8" });

describe("a trial on a worker on another host is live on the dashboard", () => {
  it("shows its log tail and transcript while it runs, and serves a continue's image request while its slot is busy", async () => {
    const created = await mutate<{ token: string }>("system.createWorkerToken", { name: "live-remote" });
    const tokenFile = path.join(tempDir("live-token"), "token");
    fs.writeFileSync(tokenFile, `${created.token}\n`, { mode: 0o600 });
    const local = startWorker({});
    const remote = startWorker({ tokenFile });
    const [, remoteId] = await Promise.all([online(local), online(remote)]);
    expect(remote.log()).toContain('as worker "live-remote"');

    // the environment: built by the worker beside the dashboard, which then stops (every trial goes remote)
    const project = await mutate<{ id: string }>("projects.add", { hostPath: calendarProject(), name: "live" });
    await mutate("environments.prepare", { projectId: project.id });
    await until(
      "the environment",
      () => call<{ versions: { status: string }[] }>("environments.overview", { projectId: project.id }),
      (overview) => overview.versions.some((version) => version.status !== "building"),
      120_000,
    ).then((overview) => expect(overview.versions.map((version) => version.status)).toEqual(["ready"]));
    local.child.kill("SIGTERM");
    await local.exited;
    phase("environment ready, the local worker stopped");

    // a first remote trial, for its committed image
    const quick = await createStudy(project.id, "live-quick");
    const quickDone = await until(
      "the quick study",
      () => study(quick.id),
      (s) => s.state === "done",
      90_000,
    );
    const earlier = quickDone.trials[0];
    expect(earlier).toMatchObject({ workerId: remoteId, state: "succeeded" });
    expect(earlier?.imageHost).not.toBeNull();
    // gone from the (shared) engine, so a continue must ask the remote worker for it
    expect(dockerImage(["rm", "-f", earlier?.committedImageId ?? ""]).status).toBe(0);
    phase("quick remote trial done");

    // the slow trial: its log lines reach the dashboard's tail while its agent still runs `sleep`
    const slow = await createStudy(project.id, "live-slow");
    const running = await until(
      "the slow command in the remote trial's log tail",
      async () => {
        const trial = (await study(slow.id)).trials[0];
        return { trial, log: trial ? await trialLog(trial.id) : null };
      },
      ({ log }) => commandLine(log?.text ?? "", SLOW) !== null,
      60_000,
    );
    const trialId = running.trial?.id ?? "";
    expect(running.trial).toMatchObject({ workerId: remoteId, state: "agent" });
    expect(running.log?.text).toContain("live-marker-one\n[exit 0]\n");
    expect(running.log?.text).not.toContain("live-marker-two");
    const attempt = dataDirPaths(webData).trialAttempt({ trialId, attempt: 1 });
    expect(fs.existsSync(attempt.log)).toBe(false); // nothing delivered yet: the tail is the live copy
    expect(fs.existsSync(attempt.liveLog)).toBe(true);
    // the download of the full log works while it runs
    const download = await fetch(`${app.base}/api/trials/${trialId}/log`, {
      headers: { authorization: `Bearer ${app.token}` },
    });
    expect(download.status).toBe(200);
    expect(commandLine(await download.text(), SLOW)).not.toBeNull();
    // the transcript (recorded agent events) and the step are live; the changes come with the results
    const transcript = await call<TranscriptView>("review.transcript", { trialId });
    expect(transcript.live).toBe(true);
    expect(transcript.items.some((item) => item.kind === "command" && item.command.includes(SLOW))).toBe(true);
    const files = await fetch(
      `${app.base}/api/trpc/review.files?input=${encodeURIComponent(JSON.stringify({ trialId }))}`,
      { headers: { authorization: `Bearer ${app.token}` } },
    );
    expect(await files.text()).toContain("is running on a worker on another host: its changes arrive here");
    phase("live log and transcript seen while the agent runs");

    // the remote worker's only job slot is busy: a continue's image request is taken at once by its transfer slot
    const asked = Date.now();
    const fetching = await mutate<SessionView>("sessions.start", {
      projectId: project.id,
      kind: "shell",
      fromTrialId: earlier?.id,
    });
    expect(fetching.reason).toMatch(/^Fetching the trial's result image/);
    const answered = await until(
      "the remote worker's answer to the image request",
      () => call<SessionView>("sessions.get", { sessionId: fetching.id }),
      (s) => s.state !== "starting",
      30_000,
    );
    const answeredInMs = Date.now() - asked;
    // the worker took it (and found the image removed): not "no worker … took the request within 120 s"
    expect(answered.reason).toMatch(/is no longer on the Docker engine of \S+ \(it was removed there\)/);
    expect(remote.log()).toMatch(/transfer worker: job image\.send image-send-\w+ failed: /);
    expect((await study(slow.id)).trials[0]?.state).toBe("agent"); // the slow trial still holds the slot
    phase(`image request answered in ${answeredInMs} ms while the trial slot was busy`);

    // the end: the delivered log replaces the live copy, every line once
    const done = await until(
      "the slow study",
      () => study(slow.id),
      (s) => s.state === "done",
      90_000,
    );
    expect(done.trials[0]).toMatchObject({ state: "succeeded", workerId: remoteId });
    const final = await trialLog(trialId);
    expect(final.text).toContain("live-marker-two");
    const slowLine = commandLine(final.text, SLOW) ?? "-";
    expect(final.text.split(`${slowLine}\n`).length - 1, slowLine).toBe(2); // the two sleeps
    for (const line of [commandLine(final.text, "echo live-marker-one") ?? "-", "live-marker-one", "live-marker-two"])
      expect(final.text.split("\n").filter((candidate) => candidate === line).length, line).toBe(1);
    expect(fs.readFileSync(attempt.log, "utf8")).toBe(final.text);
    expect(fs.existsSync(attempt.liveLog)).toBe(false);
    // what the live copy showed is the start of the worker's own log
    expect(final.text.startsWith(running.log?.text ?? "-")).toBe(true);
    phase("slow study done");
  }, 240_000);
});
