// A worker on another host (issue 29), on the real stack: the built launcher with its worker child, a second
// dockerd "on another host" (empty, its own network namespace), a fresh remote worker with its own data dir,
// and a local OCI registry (Debian's docker-registry) behind a byte-counting proxy (--registry on both sides).
// The project is Node-sized: its dependency step leaves BENCH_PACKAGES × BENCH_FILES × 10 KiB in node_modules
// (default 1,000 × 20 = 200 MB, 20,000 files, made in the container so nothing is downloaded), and its tests
// load it. A command configuration does the task, so the figures are the transfers, not a model.
//   1. first trial on the dashboard host (its worker child, nothing to fetch) — the baseline;
//   2. first trial on the fresh remote worker: its environment image pulled from the registry and the
//      installed dependencies fetched, unpacked and mounted;
//   3. a second trial there: nothing fetched;
//   4. "continue a result" of the remote trial here: its image pushed there and pulled here (bytes through
//      the registry), then a second continue of the same result (bytes: none expected).
// Figures: each one-trial study's wall time (create → done: the preflight on a fresh worker fetches the image
// and the dependencies), its trial's own time, and the bytes of each continue.
import fs from "node:fs";
import path from "node:path";
import { importBundle } from "./bundle.mjs";
import { writeResult } from "./lib.mjs";
import { tempDir } from "./study-lib.mjs";

const PACKAGES = Number(process.env.BENCH_PACKAGES ?? 1000);
const FILES = Number(process.env.BENCH_FILES ?? 20);
const MiB = 1024 * 1024;
const m = await importBundle({
  name: "remote-worker-bench",
  exports: [
    'export { remoteStack } from "./test/support/remote-stack.ts";',
    'export { launch } from "./test/support/launch.ts";',
    'export { startSecondEngine, startTcpRedis } from "./test/support/second-engine.ts";',
    'export { startLocalRegistry } from "./test/support/local-registry.ts";',
  ],
});

const STEP = [
  "node -e '",
  'const fs = require("fs"); const b = Buffer.alloc(10240, 97);',
  `for (let p = 0; p < ${PACKAGES}; p++) {`,
  '  const d = "node_modules/pkg-" + p; fs.mkdirSync(d + "/lib", { recursive: true });',
  '  fs.writeFileSync(d + "/package.json", JSON.stringify({ name: "pkg-" + p, version: "1.0.0", main: "lib/f0.js" }));',
  `  for (let f = 0; f < ${FILES}; f++) fs.writeFileSync(d + "/lib/f" + f + ".js", "module.exports = " + p + ";//" + b);`,
  "}'",
].join(" ");
const TEST = `const test = require("node:test");
const assert = require("node:assert");
test("every package loads", () => { for (let p = 0; p < ${PACKAGES}; p += 97) assert.equal(require("pkg-" + p), p); });
test("the task was done", () => assert.ok(require("node:fs").existsSync("done.txt")));
`;

const [redis, engine] = await Promise.all([m.startTcpRedis(), m.startSecondEngine()]);
const registry = await m.startLocalRegistry({ engine });
let remote = null;
const app = await m.launch({
  dataDir: tempDir("remote-bench-web"),
  args: ["--redis-url", redis.url, "--registry", registry.address],
  env: { INVARIANT_WORKER_CONCURRENCY: "1" },
});
const stack = m.remoteStack({
  app: () => app,
  engine: () => engine,
  redisUrl: () => redis.url,
  remote: () => remote,
  remoteData: tempDir("remote-bench-worker"),
});
const seconds = (trial) => (new Date(trial.finishedAt).getTime() - new Date(trial.startedAt).getTime()) / 1000;
const wall = (trial) => Number(trial.wallSeconds.toFixed(1));

async function oneTrial(projectId, title) {
  const began = Date.now();
  const created = await stack.mutate("studies.create", {
    projectId,
    title,
    taskPrompt: "Leave done.txt.",
    testCommand: "node --test",
    testFiles: [{ source: "project", path: "test/deps.test.js" }],
    concurrency: 1,
    configurations: [{ harness: "command", model: "", reasoningEffort: "low", command: "touch done.txt", repeats: 1 }],
  });
  const done = await stack.until(
    "the study",
    () => stack.study(created.id),
    (s) => s.state === "done",
    900_000,
  );
  const [trial] = done.trials;
  if (trial?.verdict?.passed !== 2)
    throw new Error(`${title}: ${JSON.stringify(trial)}\n${remote?.log().slice(-3000)}`);
  // the study's wall time: its preflight fetches what the first job on a fresh worker needs
  return { ...trial, wallSeconds: (Date.now() - began) / 1000 };
}

async function continued(projectId, trial) {
  registry.reset();
  const began = Date.now();
  const started = await stack.startContinue(projectId, trial.id);
  const running = await stack.until(
    "the session",
    () => stack.session(started.id),
    (s) => s.state !== "starting",
    600_000,
  );
  if (running.state !== "running") throw new Error(`continue: ${JSON.stringify(running)}`);
  const moved = registry.moved();
  await stack.mutate("sessions.finish", { sessionId: started.id });
  return { ms: Date.now() - began, moved };
}

try {
  const dir = tempDir("remote-bench-project");
  fs.mkdirSync(path.join(dir, "test"));
  fs.writeFileSync(path.join(dir, "package.json"), '{ "name": "remote-bench", "version": "1.0.0" }\n');
  fs.writeFileSync(path.join(dir, "test", "deps.test.js"), TEST);
  const projectId = await stack.readyProject(dir);
  await stack.mutate("dependencies.setStep", {
    projectId,
    step: { kind: "command", command: STEP, outputs: ["node_modules"], manifests: ["package.json"] },
  });
  await stack.mutate("dependencies.install", { projectId });
  await stack.until(
    "the installed dependencies",
    () => stack.call("environments.overview", { projectId }),
    (o) => o.versions.some((v) => v.version === 2 && v.status === "ready"),
    900_000,
  );
  const local = await oneTrial(projectId, "dashboard host");
  const token = await stack.workerTokenFile("bench-host");
  remote = stack.startRemoteWorker(token.file, ["--registry", registry.address]);
  await stack.remoteOnline();
  registry.reset();
  const [first, second] = await stack.withLocalPaused(async () => [
    await oneTrial(projectId, "fresh remote worker"),
    await oneTrial(projectId, "remote worker, cached"),
  ]);
  const environment = registry.moved();
  const fetched = /fetched installed dependencies .*/.exec(remote.log())?.[0] ?? "(no fetch line)";
  const pulled = /pulled image .*/.exec(remote.log())?.[0] ?? "(no pull line)";
  const once = await continued(projectId, first);
  const again = await continued(projectId, first);
  const figure = (bytes) => `${(bytes / MiB).toFixed(2)} MiB`;
  writeResult({
    name: "remote-first-trial",
    value: wall(first),
    baseline: wall(local),
    unit: "s",
    notes: `a one-trial study (create → done, its preflight included) on a fresh remote worker ${wall(first)} s vs the dashboard host's ${wall(local)} s; a second one there ${wall(second)} s (the trials alone: ${seconds(first)} s, ${seconds(local)} s, ${seconds(second)} s). node_modules ${PACKAGES} packages × ${FILES} files (${((PACKAGES * FILES * 10) / 1024).toFixed(0)} MiB). Worker: ${fetched}; ${pulled}. Registry moved up ${figure(environment.up)}, down ${figure(environment.down)} for the environment image`,
  });
  writeResult({
    name: "remote-continue-layers",
    value: again.moved.up + again.moved.down,
    baseline: once.moved.up + once.moved.down,
    unit: "bytes",
    notes: `first continue of the remote result moved up ${figure(once.moved.up)}, down ${figure(once.moved.down)} through the registry in ${once.ms} ms; the second continue moved ${again.moved.up + again.moved.down} bytes in ${again.ms} ms`,
  });
} catch (error) {
  console.error(`launcher log:\n${app.stderr().slice(-4000)}\nremote worker log:\n${remote?.log().slice(-3000) ?? ""}`);
  throw error;
} finally {
  if (remote && remote.child.exitCode === null) remote.child.kill("SIGKILL");
  await app.stop("SIGTERM");
  await engine.stop();
  await registry.stop();
  await redis.stop();
}
