// `invariant-web demo` on a prepared machine (base image built, npm installed) to a finished offline demo
// study: the dashboard started by the command, the calendar project added, its environment built, the
// preflight and three trials of real Codex on the bundled scripted model. Target: under 60 s (issue 13).
// Baseline, measured in the same run: the cold start of `invariant-web` to its URL line, so the figure
// reads as "this many cold starts" on whatever machine it runs.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { median, ROOT, startProcess, tempDir, writeResult } from "./lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
for (const name of ["REDIS_URL", "DISPLAY", "OPENAI_API_KEY", "INVARIANT_DATA_DIR"]) delete env[name];
const BIN = path.join(ROOT, "bin", "invariant-web.mjs");

function removeImages(projectId) {
  const ids = spawnSync("docker", ["images", "-q", "--filter", `label=invariant.project=${projectId}`], {
    encoding: "utf8",
  }).stdout.split("\n");
  const unique = [...new Set(ids.filter(Boolean))];
  if (unique.length > 0) spawnSync("docker", ["rmi", "-f", ...unique], { stdio: "ignore" });
}

async function until(app, pattern, what) {
  while (!pattern.test(app.stdout())) {
    if (app.child.exitCode !== null) throw new Error(`${what}: exited early\n${app.stderr()}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function coldStart() {
  const dataDir = tempDir("demo-baseline");
  const began = performance.now();
  const app = startProcess(process.execPath, [BIN, "--data-dir", dataDir, "--port", "0", "--no-open"], { env });
  await until(app, /is running at/, "invariant-web");
  const ms = performance.now() - began;
  await app.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
  return ms;
}

async function demo() {
  const dataDir = tempDir("demo");
  const codexHome = tempDir("demo-no-codex");
  const began = performance.now();
  const app = startProcess(process.execPath, [BIN, "demo", "--data-dir", dataDir, "--port", "0", "--json"], {
    env: { ...env, CODEX_HOME: codexHome },
  });
  await until(app, /^\{.*"verdicts"/m, "invariant-web demo");
  const ms = performance.now() - began;
  const result = JSON.parse(app.stdout().trim().split("\n").at(-1));
  await app.stop();
  removeImages(result.projectId);
  for (const dir of [dataDir, `${dataDir}-demo`, codexHome]) fs.rmSync(dir, { recursive: true, force: true });
  if (result.state !== "done") throw new Error(`the demo study ended ${result.state}: ${app.stderr()}`);
  return { ms, verdicts: result.verdicts };
}

const baseline = [];
const runs = [];
for (let i = 0; i < RUNS; i++) {
  baseline.push(await coldStart());
  runs.push(await demo());
}
const value = median(runs.map((run) => run.ms)) / 1000;
writeResult({
  name: "demo-to-finished",
  unit: "s",
  value: Number(value.toFixed(1)),
  baseline: Number((median(baseline) / 1000).toFixed(2)),
  runs: runs.map((run) => Number((run.ms / 1000).toFixed(1))),
  baselineRuns: baseline.map((ms) => Number((ms / 1000).toFixed(2))),
  verdicts: runs[0].verdicts,
  target: "under 60 s",
  notes: `invariant-web demo (no model access: scripted model) to a finished study, median of ${RUNS}; baseline: cold start of invariant-web to its URL line in the same run`,
});
