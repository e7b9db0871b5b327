// Issue 24's flood drill: how far past its time limit and its disk budget an agent run gets with a `yes`
// flood beside it, against the same runs alone. Three command runs through runAgent at once, as a worker
// runs three trials: the flood (its raw lines written to a trial log, as trial-agent-step.ts does), a run
// that would sleep past a 20 s limit, and one writing 8 MiB every 0.25 s (32 MiB/s) into its workspace
// against a 64 MiB budget. Time overshoot: the engine's run time (StartedAt → FinishedAt) past the limit,
// and the wall time until runAgent returned; disk overshoot: what the workspace held once the run was
// stopped, past the budget (the worst case is one measuring interval's writes: 2 s × 32 MiB/s). The
// worker loop's delay (p99, max) during the runs says whether the flood starved it.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { importBundle } from "./bundle.mjs";
import { ROOT, writeResult } from "./lib.mjs";
import { run, tempDir } from "./study-lib.mjs";

const ROUNDS = Number(process.env.BENCH_RUNS ?? 3);
const LIMIT_MS = 20_000;
const BUDGET = 64 * 1024 * 1024;
const MIB = 1024 * 1024;
const FILL =
  "i=0; while [ $i -lt 400 ]; do dd if=/dev/zero of=fill-$i.bin bs=1M count=8 2>/dev/null; i=$((i+1)); sleep 0.25; done";

const modules = await importBundle({
  name: "limits-drill",
  exports: [
    `export { runAgent } from "./src/server/core/agents/agent-run.ts";`,
    `export { startGatewaySocket } from "./src/server/core/agents/gateway-socket.ts";`,
    `export { startModelGateway } from "./src/server/core/gateway/model-gateway.ts";`,
    `export { createDockerRuntime } from "./src/server/core/runtime/docker-runtime.ts";`,
    `export { DISK_CHECK_INTERVAL_MS } from "./src/server/core/runtime/disk-budget.ts";`,
    `export { openTrialLog } from "./src/server/core/trial-records/trial-log.ts";`,
    `export { ensureAgentImage } from "./test/support/agent-image.ts";`,
  ],
});
const { runAgent, startGatewaySocket, startModelGateway, createDockerRuntime, openTrialLog, ensureAgentImage } =
  modules;

const runtime = createDockerRuntime();
const image = await ensureAgentImage(runtime);
// command runs make no model requests: the gateway only issues and revokes their tokens
const gateway = await startModelGateway({
  upstreamBaseUrl: "http://127.0.0.1:9",
  credential: () => ({ apiKey: "sk-bench-unused", source: "OPENAI_API_KEY" }),
});
const socket = await startGatewaySocket({ socketPath: path.join(tempDir("limits-gw"), "gw.sock"), gateway });
const limits = { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 256 };
const deps = {
  runtime,
  gateway,
  gatewaySocketPath: socket.path,
  bridgeDir: path.join(ROOT, "assets"),
  publish: () => Promise.resolve(),
  worker: { id: "bench-limits", host: os.hostname(), pid: process.pid },
  active: new Set(),
  agents: {},
};

/** One command run; the flood's raw lines go to a trial log of its own. */
async function commandRun(options) {
  const workspace = tempDir("limits-ws");
  const log = openTrialLog({ file: path.join(tempDir("limits-log"), "trial.log"), publish: () => Promise.resolve() });
  const began = performance.now();
  try {
    const result = await runAgent(
      {
        ...deps,
        onEvent: (event) => {
          if (event.type === "raw" && event.reason === "not-json") log.write(`${event.line}\n`);
        },
      },
      {
        runId: `limits-${options.name}-${Date.now()}`,
        projectId: "bench",
        image,
        workspacePath: workspace,
        codexHomePath: tempDir("limits-ch"),
        harness: { kind: "command", command: options.command, model: "" },
        prompt: "Drill.",
        network: "none",
        limits,
        diskBudgetBytes: options.budget ?? null,
        timeoutMs: options.timeoutMs,
      },
    );
    const wallMs = performance.now() - began;
    const { stdout } = await run("du", ["-s", "-k", workspace]);
    return { result, wallMs, workspaceBytes: Number(stdout.split("\t")[0]) * 1024 };
  } finally {
    await log.close();
    fs.rmSync(workspace, { recursive: true, force: true });
  }
}

async function round(withFlood) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  const flood = withFlood ? commandRun({ name: "flood", command: "yes", timeoutMs: LIMIT_MS + 15_000 }) : null;
  const [timed, filled] = await Promise.all([
    commandRun({ name: "time", command: "sleep 600", timeoutMs: LIMIT_MS }),
    commandRun({ name: "disk", command: FILL, timeoutMs: 120_000, budget: BUDGET }),
  ]);
  await flood;
  delay.disable();
  if (!timed.result.timedOut)
    throw new Error(`the time-limited run was not stopped: ${JSON.stringify(timed.result.outcome)}`);
  if (!filled.result.diskExceeded)
    throw new Error(`the filling run was not stopped: ${JSON.stringify(filled.result.outcome)}`);
  return {
    timeOvershootMs: timed.result.agentSeconds * 1000 - LIMIT_MS,
    wallOvershootMs: timed.wallMs - LIMIT_MS,
    diskOvershootBytes: filled.workspaceBytes - BUDGET,
    loopP99Ms: delay.percentile(99) / 1e6,
    loopMaxMs: delay.max / 1e6,
  };
}

const flooded = [];
const alone = [];
for (let i = 0; i < ROUNDS; i++) {
  flooded.push(await round(true));
  alone.push(await round(false));
  console.log(`round ${i + 1}: flooded ${JSON.stringify(flooded.at(-1))}, alone ${JSON.stringify(alone.at(-1))}`);
}
await socket.close();
await gateway.close();

const worst = (rounds, key) => Math.max(...rounds.map((r) => r[key]));
const ms = (value) => `${Math.round(value)} ms`;
const mib = (value) => `${(value / MIB).toFixed(1)} MiB`;
const rounds = (list) =>
  list
    .map((r) => `${ms(r.timeOvershootMs)}/${ms(r.wallOvershootMs)}/${mib(r.diskOvershootBytes)}/${ms(r.loopP99Ms)}`)
    .join(", ");
const notes = `worst of ${ROUNDS} rounds; ${LIMIT_MS / 1000} s limit and 64 MiB budget (measured every ${modules.DISK_CHECK_INTERVAL_MS} ms, written at 32 MiB/s) with a \`yes\` run beside, vs alone. Rounds as engine-time overshoot/wall overshoot/disk overshoot/worker loop delay p99 — flooded: ${rounds(flooded)}; alone: ${rounds(alone)}; worst loop delay flooded ${ms(worst(flooded, "loopMaxMs"))}, alone ${ms(worst(alone, "loopMaxMs"))}`;
writeResult({
  name: "limits-drill-time-overshoot",
  unit: "ms",
  value: Math.round(worst(flooded, "wallOvershootMs")),
  baseline: Math.round(worst(alone, "wallOvershootMs")),
  notes: `wall time from runAgent's call to its result past the limit; engine's run time past it: flooded ${ms(worst(flooded, "timeOvershootMs"))}, alone ${ms(worst(alone, "timeOvershootMs"))}. Target ≤ 2000 ms. ${notes}`,
});
writeResult({
  name: "limits-drill-disk-overshoot",
  unit: "MiB",
  value: Number((worst(flooded, "diskOvershootBytes") / MIB).toFixed(1)),
  baseline: Number((worst(alone, "diskOvershootBytes") / MIB).toFixed(1)),
  notes: `what the workspace held past the budget once the run was stopped. Target ≤ one interval's writes (${mib((modules.DISK_CHECK_INTERVAL_MS / 1000) * 32 * MIB)}). ${notes}`,
});
process.exit(0);
