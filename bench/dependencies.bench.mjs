// Installed dependencies (issue 16), on the real stack (web side + worker in this process, Docker, the
// real Codex binary against the mock model):
//  1. trial overhead with a ~300 MB node_modules vs without: single-trial studies of the one-step script
//     on the calendar fixture, alternating between environment v1 (no dependencies) and v2 (a dependency
//     step that leaves 300 MB in node_modules: 1,000 packages × 30 files × 10 KiB, made in the container
//     so nothing is downloaded). Every agent and evaluation container of v2 mounts it as an overlay.
//     Figures: median trial time (trial.started → trial.finished) and median overhead (that − agent −
//     test command), with / without.
//  2. re-prepare after a one-package lockfile change vs a cold install, on fixtures/deps-node-project
//     (vitest + dayjs from the npm registry): the first install (Debian's npm from apt + npm ci, empty
//     caches), a cold `npm ci` (npm present, npm cache emptied), and after `dayjs` moved one version in
//     the lockfile (warm cache). Figures: each version's build time (container start → committed).
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { importSource } from "./bundle.mjs";
import { median, ROOT, writeResult } from "./lib.mjs";
import { codexConfiguration, ONE_STEP, round, scriptsDir, startRedis, startStudyRig, tempDir } from "./study-lib.mjs";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const REPREPARE_ROUNDS = Number(process.env.BENCH_REPREPARE_ROUNDS ?? 3);
const SYNTHETIC_NODE_MODULES = [
  "node -e '",
  'const fs = require("fs"); const b = Buffer.alloc(10240, 97);',
  "for (let p = 0; p < 1000; p++) {",
  '  const d = "node_modules/pkg-" + p; fs.mkdirSync(d + "/lib", { recursive: true });',
  '  fs.writeFileSync(d + "/package.json", JSON.stringify({ name: "pkg-" + p, version: "1.0.0" }));',
  '  for (let f = 0; f < 30; f++) fs.writeFileSync(d + "/lib/f" + f + ".js", b);',
  "}'",
].join(" ");

const redis = await startRedis();
const rig = await startStudyRig({ redisUrl: redis.url, scriptsDir: scriptsDir({ "one-step": ONE_STEP }) });
const { services, db } = rig;
const ms = (from, to) => new Date(to).getTime() - new Date(from).getTime();

async function install(projectId) {
  const building = await services.dependencies.install(projectId);
  for (;;) {
    const version = (await services.environments.overview(projectId)).versions.find((v) => v.id === building.id);
    if (version.status === "failed")
      throw new Error(`${version.error}\n${await services.environments.log(version.id)}`);
    if (version.status === "ready") return version;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function oneTrial(label) {
  const { study } = await rig.runStudy({
    title: label,
    concurrency: 1,
    configurations: [codexConfiguration("one-step")],
  });
  const trial = study.trials[0];
  if (trial.verdict?.total !== 23) throw new Error(`unexpected verdict ${JSON.stringify(trial.verdict)}`);
  const row = await db.trial.findUnique({ where: { id: trial.id } });
  const total = ms(row.startedAt, row.finishedAt);
  return { total, overhead: total - trial.agentSeconds * 1000 - trial.evalSeconds * 1000 };
}

const MOUNT_ROUNDS = 20;

/** The mechanism alone: an evaluation container of each image through the worker's runtime, interleaved. */
async function containerCost(plainImage, depsImage) {
  const { withInstalledDependencies } = await importSource("src/server/core/dependencies/dependency-runtime.ts");
  const runtime = withInstalledDependencies({ runtime: rig.runtime, dataDir: rig.dataDir });
  const workspace = tempDir("mount-ws");
  const once = async (image) => {
    const began = performance.now();
    const id = await runtime.createContainer({
      image,
      command: ["true"],
      labels: { project: "bench", role: "evaluation" },
      limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 512 },
      network: "none",
      mounts: [{ hostPath: workspace, containerPath: "/workspace", readOnly: false }],
    });
    await runtime.runToExit(id, () => undefined);
    await runtime.removeContainer(id);
    return performance.now() - began;
  };
  const samples = { without: [], with: [] };
  for (let i = -2; i < MOUNT_ROUNDS; i++) {
    const a = await once(i % 2 ? plainImage : depsImage);
    const b = await once(i % 2 ? depsImage : plainImage);
    if (i < 0) continue;
    samples[i % 2 ? "without" : "with"].push(a);
    samples[i % 2 ? "with" : "without"].push(b);
  }
  return { without: median(samples.without), with: median(samples.with) };
}

async function trialOverhead() {
  const projectId = rig.projectId;
  const base = (await services.environments.overview(projectId)).versions[0];
  await services.dependencies.setStep({
    projectId,
    step: { kind: "command", command: SYNTHETIC_NODE_MODULES, outputs: ["node_modules"], manifests: ["package.json"] },
  });
  const withDeps = await install(projectId);
  const folder = path.join(rig.dataDir, withDeps.dependencies.dir, "tree", "node_modules");
  const du = spawnSync("du", ["-sb", folder], { encoding: "utf8" }).stdout.split("\t")[0];
  console.log(`node_modules: ${(Number(du) / 1024 ** 2).toFixed(0)} MiB in ${folder}`);
  const samples = { without: [], with: [] };
  for (let i = -1; i < RUNS; i++) {
    // alternate which goes first; round -1 warms both up and is not counted
    const order = i % 2 === 0 ? ["without", "with"] : ["with", "without"];
    for (const which of order) {
      await services.environments.activate(which === "with" ? withDeps.id : base.id);
      spawnSync("sync");
      const sample = await oneTrial(`${which} ${i}`);
      if (i >= 0) samples[which].push(sample);
    }
  }
  const mount = await containerCost(base.imageTag, withDeps.imageTag);
  const stat = (which, key) => median(samples[which].map((s) => s[key]));
  const result = {
    totalWithout: stat("without", "total"),
    totalWith: stat("with", "total"),
    overheadWithout: stat("without", "overhead"),
    overheadWith: stat("with", "overhead"),
    nodeModulesBytes: Number(du),
    containerWithout: mount.without,
    containerWith: mount.with,
  };
  console.log(JSON.stringify({ samples, result }));
  writeResult({
    name: "dependencies-trial-overhead",
    unit: "ms",
    value: round(result.totalWith),
    baseline: round(result.totalWithout),
    notes: `median trial time over ${RUNS} single-trial studies each, with a ${(result.nodeModulesBytes / 1024 ** 2).toFixed(0)} MiB node_modules overlay-mounted into the agent and evaluation containers vs none; overhead (trial − agent − test) ${round(result.overheadWith)} vs ${round(result.overheadWithout)} ms; one evaluation container (create, run \`true\`, remove) through the worker's runtime ${round(result.containerWith)} vs ${round(result.containerWithout)} ms (median of ${MOUNT_ROUNDS}, interleaved)`,
  });
}

async function reprepare() {
  const projectDir = path.join(tempDir("deps-node"), "deps-node-project");
  fs.cpSync(path.join(ROOT, "fixtures", "deps-node-project"), projectDir, { recursive: true });
  const project = await services.projects.add({ hostPath: projectDir });
  await services.projects.update({ id: project.id, settings: { cpus: 1, memoryBytes: 2 * 1024 ** 3, pids: 1024 } });
  const info = await rig.runtime.inspectImage(rig.image);
  await db.environmentVersion.create({
    data: {
      projectId: project.id,
      version: 1,
      imageTag: rig.image,
      imageId: info.id,
      origin: "base",
      status: "ready",
      active: true,
    },
  });
  const first = await install(project.id);
  const npmSeconds = async (version) => {
    const match = /added \d+ packages in ([\d.]+)(ms|s|m)\b/.exec(await services.environments.log(version.id));
    if (!match) return NaN;
    return (Number(match[1]) / (match[2] === "ms" ? 1000 : 1)) * (match[2] === "m" ? 60 : 1);
  };
  const cold = [];
  const changed = [];
  let dayjs = "1.11.13";
  for (let i = 0; i < REPREPARE_ROUNDS; i++) {
    fs.rmSync(path.join(rig.dataDir, "caches", "npm"), { recursive: true, force: true });
    spawnSync("sync");
    const c = await install(project.id);
    cold.push({ build: c.durationMs / 1000, npm: await npmSeconds(c) });
    dayjs = dayjs === "1.11.13" ? "1.11.12" : "1.11.13";
    const bump = spawnSync(
      "npm",
      [
        "install",
        `dayjs@${dayjs}`,
        "--package-lock-only",
        "--ignore-scripts",
        "--no-audit",
        "--no-fund",
        "--omit-lockfile-registry-resolved=false",
      ],
      { cwd: projectDir, encoding: "utf8" },
    );
    if (bump.status !== 0) throw new Error(`npm could not change the lockfile: ${bump.stderr}`);
    if (i === 0) console.log(`after the lockfile change: ${(await services.dependencies.status(project.id)).warning}`);
    spawnSync("sync");
    const w = await install(project.id);
    changed.push({ build: w.durationMs / 1000, npm: await npmSeconds(w) });
  }
  const med = (list, key) => round(median(list.map((x) => x[key])), 1);
  console.log(JSON.stringify({ firstWithAptNpm: first.durationMs / 1000, cold, changed }));
  writeResult({
    name: "dependencies-reprepare",
    unit: "s",
    value: med(changed, "build"),
    baseline: med(cold, "build"),
    notes: `fixtures/deps-node-project (vitest 2.1.9 + dayjs, 45 packages, 29 MB): build time (container start → committed) of a re-prepare after dayjs moved one version in the lockfile (npm cache warm) vs a cold npm ci (npm cache emptied), median of ${REPREPARE_ROUNDS} interleaved; npm's own time ${med(changed, "npm")} s vs ${med(cold, "npm")} s. The very first install, which also installs Debian's npm with apt, took ${round(first.durationMs / 1000, 1)} s`,
  });
}

// BENCH_PARTS=overhead or BENCH_PARTS=reprepare runs one of the two
const parts = (process.env.BENCH_PARTS ?? "overhead,reprepare").split(",");
try {
  if (parts.includes("overhead")) await trialOverhead();
  if (parts.includes("reprepare")) await reprepare();
} finally {
  await rig.close();
  await redis.stop();
}
