// 12 trials at study concurrency 2 vs the same 12 trials one at a time: wall time from the create call
// to the study being `done` (preflight included in both). One rig (web side + recorder + sweeper + a
// BullMQ worker with concurrency 2, in this process), 3 configurations × 4 repeats of the calendar
// scripts (fix-all 23/23, fix-some 13/23, fix-none 0/23), 1 CPU per container on a 2-vCPU host.
// Concurrency 2 runs first, so any warm-up left after the warm-up study favours the sequential baseline.
// Two workloads: the scripts as shipped with a model that takes BENCH_THINK_MS (default 3000 ms) per
// response — real models take seconds, so real trials mostly wait — and the instant mock, where every
// trial is CPU-bound and 2 vCPUs cap what any scheduler can gain.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { median, writeResult } from "./lib.mjs";
import {
  codexConfiguration,
  cpuBetween,
  cpuSample,
  round,
  scriptsDir,
  startRedis,
  startStudyRig,
} from "./study-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 1);
const REPEATS = Number(process.env.BENCH_REPEATS ?? 4);
const THINK_MS = Number(process.env.BENCH_THINK_MS ?? 3000);
// BENCH_WORKLOADS=think or =instant runs one of the two
const WORKLOADS = (process.env.BENCH_WORKLOADS ?? "think,instant").split(",");
const MODELS = ["calendar-fix-all", "calendar-fix-some", "calendar-fix-none"];
const scripts = scriptsDir();
// the same scripts with model latency: "<name>-think"
for (const model of MODELS) {
  const script = JSON.parse(fs.readFileSync(path.join(scripts, `${model}.json`), "utf8"));
  fs.writeFileSync(path.join(scripts, `${model}-think.json`), JSON.stringify({ ...script, thinkMs: THINK_MS }));
}
const redis = await startRedis();
const rig = await startStudyRig({ redisUrl: redis.url, scriptsDir: scripts, workerConcurrency: 2 });

const ms = (from, to) => to.getTime() - from.getTime();

async function measure(concurrency, i, configurations) {
  const before = cpuSample();
  const { study, wallMs } = await rig.runStudy({
    title: `concurrency ${concurrency} #${i}`,
    concurrency,
    configurations,
    timeoutMs: 600_000,
  });
  const cpu = cpuBetween(before, cpuSample());
  const verdicts = study.trials
    .map((trial) => trial.verdict?.passed)
    .sort((a, b) => a - b)
    .join(",");
  const rows = await rig.db.trial.findMany({ where: { studyId: study.id }, orderBy: { startedAt: "asc" } });
  const studyRow = await rig.db.study.findUnique({ where: { id: study.id } });
  // peak of trials running at once, from their start/finish times
  const edges = rows
    .flatMap((row) => [
      [row.startedAt.getTime(), 1],
      [row.finishedAt.getTime(), -1],
    ])
    .sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let running = 0;
  let peak = 0;
  for (const [, delta] of edges) peak = Math.max(peak, (running += delta));
  const trialMs = rows.map((row) => ms(row.startedAt, row.finishedAt));
  const agentMs = rows.map((row) => row.agentSeconds * 1000);
  const evalMs = rows.map((row) => row.evalSeconds * 1000);
  const preflightMs = ms(studyRow.createdAt, studyRow.startedAt);
  console.log(
    `concurrency ${concurrency}: ${round(wallMs)} ms create→done (preflight ${preflightMs} ms), peak ${peak} running, trial median ${round(median(trialMs))} ms (agent ${round(median(agentMs))}, test ${round(median(evalMs))}), verdicts ${verdicts}; host CPU ${round(cpu.hostBusy * 100)} % busy (${round(cpu.hostSeconds, 1)} CPU-s: containers ${cpu.containerSeconds === null ? "?" : round(cpu.containerSeconds, 1)}, this process ${round(cpu.selfSeconds, 1)}, dockerd ${round(cpu.dockerdSeconds, 1)}, containerd ${round(cpu.containerdSeconds, 1)}, the rest ${round(cpu.hostSeconds - (cpu.containerSeconds ?? 0) - cpu.selfSeconds - cpu.dockerdSeconds - cpu.containerdSeconds, 1)})`,
  );
  return {
    wallMs,
    hostBusy: cpu.hostBusy * 100,
    cpuPerTrial: cpu.hostSeconds / rows.length,
    containerPerTrial: (cpu.containerSeconds ?? NaN) / rows.length,
    peak,
    preflightMs,
    trialMs: median(trialMs),
    agentMs: median(agentMs),
    evalMs: median(evalMs),
  };
}

try {
  await rig.runStudy({ title: "warm-up", concurrency: 1, configurations: [codexConfiguration("calendar-fix-all")] });
  const med = (list, key) => round(median(list.map((r) => r[key])));
  for (const workload of [
    { key: "think", name: "study-concurrency-12", suffix: "-think", what: `model latency ${THINK_MS} ms per response` },
    { key: "instant", name: "study-concurrency-12-instant", suffix: "", what: "instant mock model (CPU-bound)" },
  ].filter((workload) => WORKLOADS.includes(workload.key))) {
    const configurations = MODELS.map((model) => codexConfiguration(`${model}${workload.suffix}`, REPEATS));
    const parallel = [];
    const sequential = [];
    for (let i = 0; i < RUNS; i++) {
      parallel.push(await measure(2, i, configurations));
      sequential.push(await measure(1, i, configurations));
    }
    writeResult({
      name: workload.name,
      unit: "ms",
      value: med(parallel, "wallMs"),
      baseline: med(sequential, "wallMs"),
      notes:
        `${3 * REPEATS} trials (3 configurations × ${REPEATS}, ${workload.what}), create→done wall time, median of ${RUNS}: concurrency 2 (peak ${Math.max(...parallel.map((r) => r.peak))} running) vs concurrency 1; worker concurrency 2, 1 CPU per container. ` +
        `Median trial: ${med(parallel, "trialMs")} ms at concurrency 2 (agent ${med(parallel, "agentMs")}, test ${med(parallel, "evalMs")}) vs ${med(sequential, "trialMs")} ms alone (agent ${med(sequential, "agentMs")}, test ${med(sequential, "evalMs")}); preflight ${med(parallel, "preflightMs")}/${med(sequential, "preflightMs")} ms; host CPU busy ${med(parallel, "hostBusy")} % / ${med(sequential, "hostBusy")} %, host CPU per trial ${round(median(sequential.map((r) => r.cpuPerTrial)), 1)} s alone of which containers ${round(median(sequential.map((r) => r.containerPerTrial)), 1)} s (load average at the end ${os.loadavg()[0].toFixed(1)}). Target ≤ 0.6×.`,
    });
  }
} finally {
  await rig.close();
  await redis.stop();
}
