import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { prepareComposeImages } from "../scripts/compose-images.mjs";
import { removeImages, REPO_ROOT, tempDir } from "./support/study-harness";

/**
 * Issue 17, Compose: docker-compose.yml brought up for real by Debian's docker-compose (1.29) on this
 * host's engine — Redis, the web process and two workers — from base images made offline
 * (scripts/compose-images.mjs: the debootstrap base with this host's Node.js, Debian's redis-server,
 * this checkout packed). The web answers health on loopback with both workers online, the scripted demo
 * study runs with its trials on both workers, and `down -v` leaves nothing of the project.
 */
const project = `iwcompose${randomBytes(4).toString("hex")}`;
const root = tempDir("compose");
const dataDir = path.join(root, "data"); // left to Docker and the data-dirs service to create, as for a user
const projectsDir = path.join(root, "projects");
let env: NodeJS.ProcessEnv = { ...process.env };
let port = 0;
let up = false;
let projectId = "";

function compose(args: string[], timeoutMs = 300_000) {
  const result = spawnSync("docker-compose", ["-p", project, ...args], {
    cwd: REPO_ROOT,
    env,
    encoding: "utf8",
    timeout: timeoutMs,
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return result;
}

function composeOk(args: string[], timeoutMs?: number): string {
  const result = compose(args, timeoutMs);
  if (result.status !== 0)
    throw new Error(`docker-compose ${args.join(" ")} exited ${result.status}:\n${result.stderr.slice(-4000)}`);
  return result.stdout;
}

function docker(args: string[]): string[] {
  return spawnSync("docker", args, { encoding: "utf8" }).stdout.split("\n").filter(Boolean);
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port: free } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return free;
}

const begun = Date.now();
const elapsed = () => `${((Date.now() - begun) / 1000).toFixed(1)} s`;

beforeAll(async () => {
  if (spawnSync("docker-compose", ["version"], { stdio: "ignore" }).status !== 0)
    throw new Error("docker-compose is missing: apt-get install -y docker-compose (npm test installs it as root)");
  fs.chmodSync(root, 0o755); // the services run as uid 1000 and must reach the folders inside
  port = await freePort();
  env = {
    ...process.env,
    ...prepareComposeImages({ log: (message) => process.stderr.write(`[compose test] ${message} (${elapsed()})\n`) }),
    INVARIANT_DATA_DIR: dataDir,
    INVARIANT_PROJECTS_DIR: projectsDir,
    INVARIANT_PORT: String(port),
    INVARIANT_IMAGE: "invariant-test/compose",
    // one job at a time each, so a study of three trials must use both workers
    INVARIANT_WORKER_CONCURRENCY: "1",
    DOCKER_GID: String(fs.statSync("/var/run/docker.sock").gid),
  };
  delete env.REDIS_URL;
  up = true;
  const started = Date.now();
  composeOk(["up", "-d", "--build"], 600_000);
  process.stderr.write(`[compose test] up -d --build took ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}, 900_000);

afterAll(() => {
  if (up) compose(["down", "-v"]);
  if (projectId) {
    removeImages(`invariant-trial/${projectId.toLowerCase()}`);
    removeImages(`invariant-env/${projectId.toLowerCase()}`);
  }
  fs.rmSync(root, { recursive: true, force: true });
}, 120_000);

/** The ids the two workers announced in their logs ("worker <id> online"). */
function workerIds(): string[] {
  const logs = composeOk(["logs", "--no-color", "worker"]);
  return [...logs.matchAll(/worker (\S+) online/g)].map((match) => match[1] ?? "");
}

describe("docker-compose.yml", () => {
  it("serves the dashboard on loopback only, with both workers online", async () => {
    let health: { status?: string; workers?: { online?: number } } = {};
    for (const started = Date.now(); Date.now() - started < 180_000;) {
      const response = await fetch(`http://127.0.0.1:${port}/api/health`, { signal: AbortSignal.timeout(5000) }).catch(
        () => null,
      );
      health = response ? ((await response.json().catch(() => ({}))) as typeof health) : {};
      if (health.status === "ok" && health.workers?.online === 2) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
    expect(health).toMatchObject({ status: "ok", redis: { reachable: true }, workers: { online: 2 } });
    expect(new Set(workerIds()).size).toBe(2);
    // published on 127.0.0.1 only, and Redis not at all
    expect(composeOk(["port", "web", String(port)]).trim()).toBe(`127.0.0.1:${port}`);
    const redisPorts = docker([
      "ps",
      "--filter",
      `label=com.docker.compose.project=${project}`,
      "--format",
      "{{.Names}} {{.Ports}}",
    ])
      .filter((line) => line.includes("redis"))
      .map((line) => line.split(" ").slice(1).join(" "));
    expect(redisPorts).toEqual([""]);
    // the web process found its worker-less launch and Redis of the Compose network
    expect(composeOk(["logs", "--no-color", "web"])).toContain(`is running at http://127.0.0.1:${port}/?token=`);
  }, 240_000);

  it("runs the scripted demo study, its trials spread over the two workers", () => {
    // the CLI's --json workflow inside the web container, as a user of the stack would run it
    const demo = composeOk(
      [
        "exec",
        "-T",
        "web",
        "node",
        "/opt/invariant-web/bin/invariant-web.mjs",
        "demo",
        "--scripted",
        path.join(projectsDir, "calendar"),
        "--json",
      ],
      600_000,
    );
    const result = JSON.parse(demo.trim().split("\n").at(-1) ?? "{}") as {
      studyId: string;
      projectId: string;
      state: string;
      verdicts: string[];
    };
    projectId = result.projectId;
    expect(result).toMatchObject({ state: "done", verdicts: ["0/23", "13/23", "23/23"] });
    // the project and its results are on the host, at the same path: the data dir is a host folder
    expect(fs.existsSync(path.join(projectsDir, "calendar", "test", "calendar.test.js"))).toBe(true);
    const db = new Database(path.join(dataDir, "invariant.db"), { readonly: true, fileMustExist: true });
    try {
      const trials = db.prepare("SELECT workerId, state FROM Trial WHERE studyId = ?").all(result.studyId) as {
        workerId: string | null;
        state: string;
      }[];
      expect(trials.map((trial) => trial.state)).toEqual(["succeeded", "succeeded", "succeeded"]);
      expect(new Set(trials.map((trial) => trial.workerId))).toEqual(new Set(workerIds()));
    } finally {
      db.close();
    }
  }, 660_000);

  it("down -v leaves no container, network or volume of the project", () => {
    composeOk(["down", "-v"], 120_000);
    up = false;
    const label = `label=com.docker.compose.project=${project}`;
    expect(docker(["ps", "-aq", "--filter", label])).toEqual([]);
    expect(docker(["network", "ls", "-q", "--filter", label])).toEqual([]);
    expect(docker(["volume", "ls", "-q", "--filter", label])).toEqual([]);
    // and the workers left none of the trial containers they started
    expect(docker(["ps", "-aq", "--filter", `label=invariant.project=${projectId}`])).toEqual([]);
  }, 180_000);
});
