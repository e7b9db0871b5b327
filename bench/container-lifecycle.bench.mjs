// Container create → start → exit → remove through our runtime (labels, limits, no-new-privileges,
// init, attach for output) vs `docker run --rm` of the same image and command, interleaved in one run.
import { spawnSync } from "node:child_process";
import { importSource } from "./bundle.mjs";
import { median, writeResult } from "./lib.mjs";

const IMAGE = process.env.BENCH_IMAGE ?? "invariant-base:bookworm";
const RUNS = Number(process.env.BENCH_RUNS ?? 10);
const { createDockerRuntime } = await importSource("src/server/core/runtime/docker-runtime.ts");
const runtime = createDockerRuntime();
const limits = { cpus: 1, memoryBytes: 512 * 1024 * 1024, swapBytes: 0, pids: 256 };

async function ours() {
  const began = performance.now();
  const id = await runtime.createContainer({
    image: IMAGE,
    command: ["true"],
    labels: { project: "bench", role: "probe" },
    limits,
    network: "none",
  });
  const { exitCode } = await runtime.runToExit(id, () => undefined);
  await runtime.removeContainer(id);
  if (exitCode !== 0) throw new Error(`exit ${exitCode}`);
  return performance.now() - began;
}

function baseline() {
  const began = performance.now();
  const result = spawnSync(
    "docker",
    [
      "run",
      "--rm",
      "--network",
      "none",
      "--init",
      "--cpus",
      "1",
      "--memory",
      "512m",
      "--pids-limit",
      "256",
      IMAGE,
      "true",
    ],
    { stdio: "ignore" },
  );
  if (result.status !== 0) throw new Error("docker run failed");
  return performance.now() - began;
}

await ours(); // warm up both paths once
baseline();
const oursMs = [];
const baselineMs = [];
for (let i = 0; i < RUNS; i++) {
  oursMs.push(await ours());
  baselineMs.push(baseline());
}
writeResult({
  name: "container-lifecycle",
  unit: "ms",
  value: Math.round(median(oursMs)),
  baseline: Math.round(median(baselineMs)),
  notes: `median of ${RUNS}, interleaved: create→start→exit→remove of \`true\` in ${IMAGE} through the runtime (dockerode, attach for output) vs \`docker run --rm\` with the same limits. Target ≤ 1.2×.`,
});
