// Helpers for the study benchmarks (bench/study-*.bench.mjs): one esbuild bundle of the product modules
// they drive (so the web side and the worker share one copy of each module), a private Redis on a unix
// socket, a whole study rig in-process (web side + recorder + sweeper + worker + mock model + the
// calendar fixture project with a ready environment on the agent test image), and small timing helpers.
import { spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { importBundle } from "./bundle.mjs";
import os from "node:os";
import { ROOT } from "./lib.mjs";

/**
 * Temp dirs of the study benches. Not named iw-*: a vitest run's global teardown removes every /tmp/iw-*
 * created while it ran, which would pull a data dir from under a bench running beside the tests.
 */
export function tempDir(prefix) {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `invariant-bench-${prefix}-`)));
}

export const FAKE_KEY = "sk-bench-STUDY-KEY";
export const TASK_PROMPT = "Implement every function in src/calendar.js so that the tests pass.";
export const TEST_COMMAND = "node --test";
export const TEST_FILE = "test/calendar.test.js";

/** The product modules the study benches use, bundled once into a single ES module and imported. */
const ENTRY = `
export { openWebCore, openWebDatabase } from "./src/server/web/wiring/web-core.ts";
export { connectRedis } from "./src/server/core/redis/connection.ts";
export { publishEvent, EVENT_STREAM_KEY } from "./src/server/core/events/event-stream.ts";
export { startMockModel } from "./src/server/core/mock-model/mock-model-server.ts";
export { createDockerRuntime } from "./src/server/core/runtime/docker-runtime.ts";
export { ensureAgentImage } from "./test/support/agent-image.ts";
export { startWorker } from "./worker/main.ts";
export { writeHeartbeat } from "./src/server/core/redis/worker-registry.ts";
`;

let loaded = null;
export async function productModules() {
  if (loaded) return loaded;
  loaded = await importBundle({ name: "study-modules", exports: ENTRY.trim().split("\n") });
  return loaded;
}

/** Asynchronous on purpose: the mock model and the worker answer from this process, so its event loop must keep running. */
export function run(command, args, options = {}) {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], ...options });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (status) => resolve({ status, stdout, stderr }));
  });
}

export async function mustRun(command, args, options = {}) {
  const result = await run(command, args, options);
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.slice(0, 3).join(" ")} … exited ${result.status}: ${result.stderr.slice(-2000)}`,
    );
  return result;
}

/** A redis-server of the bench's own on a unix socket in a temp dir (no TCP port, no persistence). */
export async function startRedis() {
  const dir = tempDir("redis");
  const socket = path.join(dir, "redis.sock");
  const child = spawn(
    "redis-server",
    [
      "--port",
      "0",
      "--unixsocket",
      socket,
      "--unixsocketperm",
      "700",
      "--dir",
      dir,
      "--save",
      "",
      "--appendonly",
      "no",
      "--daemonize",
      "no",
      "--logfile",
      path.join(dir, "redis.log"),
    ],
    { stdio: "ignore" },
  );
  const exited = new Promise((resolve) => child.once("exit", resolve));
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (child.exitCode !== null)
      throw new Error(`redis-server exited: ${fs.readFileSync(path.join(dir, "redis.log"), "utf8").slice(-1000)}`);
    const ok = await new Promise((resolve) => {
      const probe = net.connect(socket, () => probe.write("PING\r\n"));
      probe.once("data", (data) => {
        probe.destroy();
        resolve(String(data).startsWith("+PONG"));
      });
      probe.once("error", () => resolve(false));
    });
    if (ok) break;
    if (Date.now() > deadline) throw new Error("redis-server did not answer PING in 10 s");
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return {
    url: `unix://${socket}`,
    pid: child.pid,
    async stop() {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Copies fixtures/calendar-project (23 failing node:test checks) into a fresh directory. */
export function calendarProject() {
  const dir = path.join(tempDir("calendar"), "calendar");
  fs.cpSync(path.join(ROOT, "fixtures", "calendar-project"), dir, { recursive: true });
  return dir;
}

/** The shipped mock scripts plus the bench's own. */
export function scriptsDir(extra = {}) {
  const dir = tempDir("scripts");
  fs.cpSync(path.join(ROOT, "mock-scripts"), dir, { recursive: true });
  for (const [name, script] of Object.entries(extra))
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(script));
  return dir;
}

/** One shell command, then a reply: the shortest agent turn that still runs a tool. */
export const ONE_STEP = {
  description: "Runs one command and replies.",
  usage: { inputTokens: 100, outputTokens: 10 },
  steps: [
    { kind: "run", command: "echo ok" },
    { kind: "reply", text: "done" },
  ],
};

/**
 * The whole study pipeline in this process, wired as the web process and `invariant-web worker` wire it:
 * migrated SQLite + app services (dispatcher, sweeper at its default interval) + the event recorder,
 * a BullMQ worker with its model gateway pointed at the mock model, and the calendar project with a
 * ready environment version on the agent test image and 1 CPU per container.
 */
export async function startStudyRig(options) {
  const m = await productModules();
  const runtime = m.createDockerRuntime();
  const dataDir = tempDir("study-data");
  const core = await m.openWebCore({
    root: ROOT,
    dataDir,
    redisUrl: options.redisUrl,
    adminToken: "a_benchadmintokenbenchadmintoken0",
    publicUrl: "http://127.0.0.1:1",
    version: "bench",
    runtime,
    log: (line) => console.error(line),
  });
  await core.start();
  const { db, services } = core;
  const hostCodex = tempDir("host-codex");
  const mock = await m.startMockModel({ scriptsDir: options.scriptsDir, apiKey: FAKE_KEY, host: "127.0.0.1" });
  const worker = await m.startWorker({
    redisUrl: options.redisUrl,
    dataDir,
    concurrency: options.workerConcurrency ?? 2,
    version: "bench",
    modelGateway: { openaiApiKey: FAKE_KEY, codexHome: hostCodex, upstreamBaseUrl: mock.url },
    log: (line) => (options.verbose ? console.error(line) : undefined),
  });
  const image = await m.ensureAgentImage(runtime);
  const info = await runtime.inspectImage(image);
  const projectDir = calendarProject();
  const project = await services.projects.add({ hostPath: projectDir });
  await services.projects.update({ id: project.id, settings: { cpus: 1, memoryBytes: 1024 ** 3, pids: 512 } });
  await db.environmentVersion.create({
    data: {
      projectId: project.id,
      version: 1,
      imageTag: image,
      imageId: info.id,
      origin: "base",
      status: "ready",
      active: true,
    },
  });

  return {
    m,
    db,
    services,
    runtime,
    mock,
    worker,
    image,
    dataDir,
    projectDir,
    projectId: project.id,
    /** Creates a study and waits until it is done; wall time from the create call to `done` as seen by polling every 50 ms. */
    async runStudy(input) {
      const began = performance.now();
      const created = await services.studies.create(
        {
          projectId: project.id,
          title: input.title,
          taskPrompt: TASK_PROMPT,
          testCommand: TEST_COMMAND,
          testFiles: [{ source: "project", path: TEST_FILE }],
          concurrency: input.concurrency,
          configurations: input.configurations,
        },
        "admin",
      );
      const deadline = Date.now() + (input.timeoutMs ?? 300_000);
      for (;;) {
        const row = await db.study.findUnique({ where: { id: created.id }, select: { state: true } });
        if (row.state === "done" || row.state === "stopped" || row.state === "refused") break;
        if (Date.now() > deadline)
          throw new Error(`study ${created.id} still ${row.state} after ${input.timeoutMs ?? 300_000} ms`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const wallMs = performance.now() - began;
      const study = await services.studies.get(created.id);
      if (study.state !== "done") throw new Error(`study ended ${study.state}: ${study.refusal ?? ""}`);
      const bad = study.trials.filter((trial) => trial.state !== "succeeded");
      if (bad.length > 0)
        throw new Error(`trials did not succeed: ${JSON.stringify(bad.map((trial) => [trial.state, trial.error]))}`);
      return { study, wallMs };
    },
    async close() {
      await worker.stop("bench finished");
      await core.close();
      await mock.close();
      const images = (await run("docker", ["images", "-q", `invariant-trial/${project.id.toLowerCase()}`])).stdout
        .split("\n")
        .filter(Boolean);
      if (images.length > 0) await run("docker", ["rmi", "-f", ...new Set(images)]);
      for (const dir of [dataDir, hostCodex, options.scriptsDir]) fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(path.dirname(projectDir), { recursive: true, force: true });
    },
  };
}

export const codexConfiguration = (model, repeats = 1) => ({
  harness: "codex",
  model,
  reasoningEffort: "low",
  repeats,
});

export function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

/** Host CPU ticks (all cores) and this process's CPU time, to say how busy a measured span was. */
export function cpuSample() {
  const fields = fs.readFileSync("/proc/stat", "utf8").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
  const idle = fields[3] + fields[4];
  const total = fields.reduce((sum, value) => sum + value, 0);
  return {
    idle,
    total,
    self: process.cpuUsage(),
    dockerd: pidTicks("dockerd"),
    containerd: pidTicks("containerd"),
    containers: containerNanos(),
  };
}

/** CPU time of all containers so far (cgroup v1 cpuacct of Docker's parent cgroup keeps removed containers' usage); null if not found. */
function containerNanos() {
  for (const file of [
    "/sys/fs/cgroup/cpuacct/docker/cpuacct.usage",
    "/sys/fs/cgroup/cpu,cpuacct/docker/cpuacct.usage",
  ]) {
    try {
      return Number(fs.readFileSync(file, "utf8"));
    } catch {
      // not cgroup v1 with the cgroupfs driver
    }
  }
  return null;
}

function pidTicks(name) {
  let ticks = 0;
  for (const entry of fs.readdirSync("/proc").filter((e) => /^\d+$/.test(e))) {
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (!stat.includes(`(${name})`)) continue;
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(rest[11]) + Number(rest[12]);
    } catch {
      // gone
    }
  }
  return ticks;
}

/** Host busy share (0..1 of all cores), host busy CPU seconds, and CPU seconds of this process, dockerd, containerd and all containers between two samples. */
export function cpuBetween(a, b) {
  const hz = 100;
  return {
    hostBusy: 1 - (b.idle - a.idle) / (b.total - a.total),
    selfSeconds: (b.self.user - a.self.user + b.self.system - a.self.system) / 1e6,
    dockerdSeconds: (b.dockerd - a.dockerd) / hz,
    containerdSeconds: (b.containerd - a.containerd) / hz,
    hostSeconds: (b.total - b.idle - (a.total - a.idle)) / hz,
    containerSeconds: a.containers === null || b.containers === null ? null : (b.containers - a.containers) / 1e9,
  };
}

export const round = (value, digits = 0) => Number(value.toFixed(digits));
