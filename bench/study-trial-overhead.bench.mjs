// Per-trial overhead of the study pipeline with a one-step mock script, against the same work done by
// hand with the docker CLI. Overhead = total trial time − agent time − test command time.
//  ours:    a study (web side + recorder + sweeper + BullMQ worker, in this process) with one trial of a
//           one-step script (`echo ok`, then a reply) on the calendar fixture, test command `node --test`,
//           concurrency 1. Trial time = trial.finished − trial.started (the worker's event times);
//           agent time = agentSeconds (container start → exit); test time = evalSeconds (start → exit).
//  by hand: cp -a project → workspace; docker create (same limits) + docker start -a of the same
//           `codex exec` straight at the mock (host network) + docker commit + docker rm;
//           git diff --no-index --stat; cp -a workspace → eval copy, copy the test file back;
//           docker create + docker start -a `node --test` + docker rm; rm -rf the eval copy.
//           Agent/test time = the `docker start -a` calls (start → exit, like ours).
// Interleaved: one single-trial study, then one by-hand run, BENCH_RUNS times, after one warm-up of each.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { median, writeResult } from "./lib.mjs";
import {
  codexConfiguration,
  FAKE_KEY,
  mustRun,
  ONE_STEP,
  round,
  run,
  scriptsDir,
  startRedis,
  startStudyRig,
  tempDir,
  TEST_COMMAND,
  TEST_FILE,
} from "./study-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const PROMPT = "Implement every function in src/calendar.js so that the tests pass.";
const redis = await startRedis();
const rig = await startStudyRig({
  redisUrl: redis.url,
  scriptsDir: scriptsDir({ "one-step": ONE_STEP }),
  workerConcurrency: 2,
});
const limitArgs = [
  "--init",
  "--cpus",
  "1",
  "--memory",
  String(1024 ** 3),
  "--memory-swap",
  String(1024 ** 3),
  "--pids-limit",
  "512",
  "--security-opt",
  "no-new-privileges:true",
];
const byHandRepo = `iw-bench-by-hand-${process.pid}`;

const ms = (from, to) => new Date(to).getTime() - new Date(from).getTime();

/** Phase times of one trial from the event log (the worker's own timestamps). */
async function phasesOf(study, trial) {
  const rows = await rig.db.eventLog.findMany({
    where: {
      OR: [{ trialId: trial.id }, { projectId: study.projectId, type: { in: ["agent.started", "agent.finished"] } }],
    },
    orderBy: { id: "asc" },
  });
  const events = rows
    .map((row) => JSON.parse(row.payload))
    .filter((event) => !event.type.startsWith("agent.") || event.data.runId === `${trial.id}-${trial.attempt}`);
  const at = (predicate) => events.find(predicate)?.at;
  const started = at((e) => e.type === "trial.started");
  const preparing = at((e) => e.type === "trial.progress" && e.data.state === "preparing");
  const agentStep = at((e) => e.type === "trial.progress" && e.data.state === "agent");
  const agentStarted = at((e) => e.type === "agent.started");
  const agentFinished = at((e) => e.type === "agent.finished");
  const diffStep = at((e) => e.type === "trial.progress" && e.data.step.startsWith("Recording the diff"));
  const evalStep = at((e) => e.type === "trial.progress" && e.data.step.startsWith("Restoring"));
  const finished = at((e) => e.type === "trial.finished");
  return {
    total: ms(started, finished),
    start: ms(started, preparing),
    workspace: ms(preparing, agentStep),
    agentCreate: ms(agentStep, agentStarted),
    agentRun: trial.agentSeconds * 1000,
    commit: ms(agentStarted, agentFinished) - trial.agentSeconds * 1000,
    agentRemove: ms(agentFinished, diffStep),
    diff: ms(diffStep, evalStep),
    evalRun: trial.evalSeconds * 1000,
    evalRest: ms(evalStep, finished) - trial.evalSeconds * 1000,
  };
}

async function ours(i) {
  const { study, wallMs } = await rig.runStudy({
    title: `overhead ${i}`,
    concurrency: 1,
    configurations: [codexConfiguration("one-step")],
  });
  const trial = study.trials[0];
  const row = await rig.db.trial.findUnique({ where: { id: trial.id } });
  const total = ms(row.startedAt, row.finishedAt);
  const overhead = total - trial.agentSeconds * 1000 - trial.evalSeconds * 1000;
  if (trial.verdict?.total !== 23) throw new Error(`unexpected verdict ${JSON.stringify(trial.verdict)}`);
  return {
    total,
    overhead,
    agent: trial.agentSeconds * 1000,
    test: trial.evalSeconds * 1000,
    wallMs,
    queuedToStarted: ms(row.enqueuedAt, row.startedAt),
    phases: await phasesOf(study, trial),
  };
}

async function timed(fn) {
  const began = performance.now();
  const result = await fn();
  return { ms: performance.now() - began, result };
}

async function byHand(i) {
  const root = tempDir("by-hand");
  const workspace = path.join(root, "workspace");
  const evalTree = path.join(root, "evaluation");
  const codexHome = path.join(root, "codex-home");
  fs.mkdirSync(codexHome);
  const phases = {};
  const began = performance.now();
  phases.workspace = (await timed(() => mustRun("cp", ["-a", rig.projectDir, workspace]))).ms;
  const provider = `model_providers.mock={ name="mock", base_url="${rig.mock.url}", env_key="MOCK_KEY", wire_api="responses", request_max_retries=0, stream_max_retries=0 }`;
  const create = await timed(() =>
    mustRun("docker", [
      "create",
      ...limitArgs,
      "--network",
      "host",
      "-e",
      `MOCK_KEY=${FAKE_KEY}`,
      "-e",
      "HOME=/root",
      "-e",
      "CODEX_HOME=/ch",
      "-v",
      `${codexHome}:/ch`,
      "-v",
      `${workspace}:/workspace`,
      "-w",
      "/workspace",
      rig.image,
      "codex",
      "exec",
      "--json",
      "--skip-git-repo-check",
      "--dangerously-bypass-approvals-and-sandbox",
      "-m",
      "one-step",
      "-c",
      'model_reasoning_effort="low"',
      "-c",
      provider,
      "-c",
      'model_provider="mock"',
      PROMPT,
    ]),
  );
  phases.agentCreate = create.ms;
  const agentId = create.result.stdout.trim();
  const agent = await timed(() => run("docker", ["start", "-a", agentId]));
  if (agent.result.status !== 0 || !agent.result.stdout.includes("turn.completed"))
    throw new Error(`by-hand codex failed: ${agent.result.stderr.slice(-2000)}`);
  phases.agentRun = agent.ms;
  phases.commit = (await timed(() => mustRun("docker", ["commit", agentId, `${byHandRepo}:run-${i}`]))).ms;
  phases.agentRemove = (await timed(() => mustRun("docker", ["rm", agentId]))).ms;
  phases.diff = (await timed(() => run("git", ["diff", "--no-index", "--stat", rig.projectDir, workspace]))).ms;
  const evalCopy = await timed(async () => {
    await mustRun("cp", ["-a", workspace, evalTree]);
    await mustRun("cp", ["-p", path.join(rig.projectDir, TEST_FILE), path.join(evalTree, TEST_FILE)]);
  });
  const evalCreate = await timed(() =>
    mustRun("docker", [
      "create",
      ...limitArgs,
      "--network",
      "none",
      "-e",
      "HOME=/root",
      "-e",
      "CI=1",
      "-v",
      `${evalTree}:/workspace`,
      "-w",
      "/workspace",
      rig.image,
      "/bin/sh",
      "-c",
      TEST_COMMAND,
    ]),
  );
  const evalId = evalCreate.result.stdout.trim();
  const test = await timed(() => run("docker", ["start", "-a", evalId]));
  if (!/# tests 23/.test(test.result.stdout))
    throw new Error(`by-hand test run unexpected: ${test.result.stdout.slice(-500)}`);
  phases.evalRun = test.ms;
  const evalRest = await timed(async () => {
    await mustRun("docker", ["rm", evalId]);
    fs.rmSync(evalTree, { recursive: true, force: true });
  });
  phases.evalRest = evalCopy.ms + evalCreate.ms + evalRest.ms;
  const total = performance.now() - began;
  phases.total = total;
  fs.rmSync(root, { recursive: true, force: true });
  return { total, overhead: total - agent.ms - test.ms, agent: agent.ms, test: test.ms, phases };
}

try {
  await ours(-1); // warm up both paths (image layers, page cache, JIT)
  await byHand(-1);
  const oursRuns = [];
  const handRuns = [];
  for (let i = 0; i < RUNS; i++) {
    oursRuns.push(await ours(i));
    handRuns.push(await byHand(i));
  }
  const med = (list, pick) => round(median(list.map(pick)));
  const phaseKeys = [
    "workspace",
    "agentCreate",
    "agentRun",
    "commit",
    "agentRemove",
    "diff",
    "evalRun",
    "evalRest",
    "total",
  ];
  const phaseLine = (list) => phaseKeys.map((key) => `${key} ${med(list, (r) => r.phases[key])}`).join(", ");
  console.log(
    `ours per run (total/overhead ms): ${oursRuns.map((r) => `${round(r.total)}/${round(r.overhead)}`).join(" ")}`,
  );
  console.log(
    `by hand per run (total/overhead ms): ${handRuns.map((r) => `${round(r.total)}/${round(r.overhead)}`).join(" ")}`,
  );
  console.log(
    `ours phases (median ms): ${phaseLine(oursRuns)}, start ${med(oursRuns, (r) => r.phases.start)}; queued→started ${med(oursRuns, (r) => r.queuedToStarted)}; study create→done ${med(oursRuns, (r) => r.wallMs)}`,
  );
  console.log(`by-hand phases (median ms): ${phaseLine(handRuns)}`);
  writeResult({
    name: "study-trial-overhead",
    unit: "ms",
    value: med(oursRuns, (r) => r.overhead),
    baseline: med(handRuns, (r) => r.overhead),
    notes:
      `median of ${RUNS}, interleaved. Overhead = trial time − agent (start→exit) − test command (start→exit), one-step script on the calendar fixture, 1 CPU per container. ` +
      `Totals: ours ${med(oursRuns, (r) => r.total)} ms (agent ${med(oursRuns, (r) => r.agent)}, test ${med(oursRuns, (r) => r.test)}), by hand ${med(handRuns, (r) => r.total)} ms (agent ${med(handRuns, (r) => r.agent)}, test ${med(handRuns, (r) => r.test)}). ` +
      `Ours phases: ${phaseLine(oursRuns)}. By hand: ${phaseLine(handRuns)}. Queued→started ${med(oursRuns, (r) => r.queuedToStarted)} ms, study create→done ${med(oursRuns, (r) => r.wallMs)} ms. Load average at the end ${os.loadavg()[0].toFixed(1)}. Target ≤ 1.3×.`,
  });
} finally {
  await rig.close();
  const images = (await run("docker", ["images", "-q", byHandRepo])).stdout.split("\n").filter(Boolean);
  if (images.length > 0) await run("docker", ["rmi", "-f", ...new Set(images)]);
  await redis.stop();
}
