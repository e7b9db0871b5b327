import { execFile, execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import Docker from "dockerode";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../../../../test/support/temp";
import { LABEL } from "./container-spec";
import { createDockerRuntime } from "./docker-runtime";
import { ensureProjectNetwork, projectNetworkName } from "./project-network";

/**
 * Processes creating one project's bridge at once (the web process for a session, workers for trials):
 * Docker lets each `createNetwork` of one name succeed, and the name is then ambiguous to every
 * container create ("network … is ambiguous (2 matches found on name)"), which ended trials `error`.
 */
const docker = new Docker();
const runtime = createDockerRuntime({ hostCaBundle: null });
const run = randomBytes(4).toString("hex");
const projects: string[] = [];
const containers: string[] = [];
const CHILDREN = 6;
const childDir = path.join(REPO_ROOT, "node_modules", ".cache", `project-network-${process.pid}-${run}`);
const child = path.join(childDir, "ensure.mjs");

function projectId(what: string): string {
  const id = `net-${what}-${run}`;
  projects.push(id);
  return id;
}

/** The networks of the project's bridge name, by the docker CLI (an independent check), oldest first. */
function bridgesOf(id: string): { id: string; created: string }[] {
  const name = projectNetworkName(id);
  return execFileSync("docker", ["network", "ls", "-q", "--no-trunc", "--filter", `name=${name}`], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean)
    .map((networkId) => {
      const [info] = JSON.parse(execFileSync("docker", ["network", "inspect", networkId], { encoding: "utf8" })) as [
        { Id: string; Name: string; Created: string },
      ];
      return info;
    })
    .filter((info) => info.Name === name)
    .map((info) => ({ id: info.Id, created: info.Created }))
    .sort((a, b) => a.created.localeCompare(b.created));
}

/** A second network of the bridge's name, as an older version (or a process without the lock) made it. */
async function twin(id: string): Promise<string> {
  const made = await docker.createNetwork({
    Name: projectNetworkName(id),
    Driver: "bridge",
    CheckDuplicate: false,
    Labels: { [LABEL.managed]: "true", [LABEL.project]: id },
  });
  return made.id;
}

/** The networks of this name the engine creates from now on (its event stream). */
async function networkCreations(name: string): Promise<{ made: string[]; stop: () => void }> {
  const made: string[] = [];
  const stream = await docker.getEvents({ filters: { type: ["network"], event: ["create"] } });
  stream.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
      const event = JSON.parse(line) as { Actor: { ID: string; Attributes: { name?: string } } };
      if (event.Actor.Attributes.name === name) made.push(event.Actor.ID);
    }
  });
  return { made, stop: () => (stream as unknown as { destroy: () => void }).destroy() };
}

function spec(id: string, script: string) {
  return {
    image: "invariant-base:bookworm",
    command: ["sh", "-c", script],
    labels: { project: id, role: "probe" as const },
    network: "internet" as const,
    limits: { cpus: 0.5, memoryBytes: 256 * 1024 * 1024, swapBytes: 0, pids: 64 },
  };
}

beforeAll(async () => {
  // the module bundled as the worker's build bundles it, run by separate node processes
  await build({
    stdin: {
      contents: `import Docker from "dockerode";
import { withProjectNetwork } from ${JSON.stringify(path.join(REPO_ROOT, "src/server/core/runtime/project-network.ts"))};
const [projectId, at] = process.argv.slice(2);
const docker = new Docker();
await new Promise((resolve) => setTimeout(resolve, Number(at) - Date.now()));
// as a trial does: its container is put on the bridge under the lock, so no reconcile takes the bridge meanwhile
const made = await withProjectNetwork({ docker, projectId }, async (network) => {
  const container = await docker.createContainer({ Image: "invariant-base:bookworm", Cmd: ["true"], HostConfig: { NetworkMode: network } });
  return { network, container: container.id };
});
process.stdout.write(JSON.stringify(made));`,
      resolveDir: REPO_ROOT,
      loader: "ts",
    },
    outfile: child,
    bundle: true,
    format: "esm",
    platform: "node",
    target: "node20",
    packages: "external",
    logLevel: "warning",
  });
}, 60_000);

afterAll(async () => {
  for (const id of containers) await runtime.removeContainer(id).catch(() => undefined);
  for (const id of projects) for (const bridge of bridgesOf(id)) execFileSync("docker", ["network", "rm", bridge.id]);
  fs.rmSync(childDir, { recursive: true, force: true });
});

describe("a project's bridge", () => {
  it("is created once by separate processes asking at the same moment, and each gets its id", async () => {
    const id = projectId("processes");
    const creations = await networkCreations(projectNetworkName(id));
    const at = String(Date.now() + 1_500); // all of them ask at once, past node's start-up
    const made = await Promise.all(
      Array.from({ length: CHILDREN }, async () => {
        const { stdout } = await promisify(execFile)("node", [child, id, at]);
        return JSON.parse(stdout) as { network: string; container: string };
      }),
    );
    containers.push(...made.map((each) => each.container));
    const ids = made.map((each) => each.network);
    const bridges = bridgesOf(id);
    expect(bridges).toHaveLength(1);
    expect(ids).toEqual(Array.from({ length: CHILDREN }, () => bridges[0]?.id));
    // not made twice and one of them removed afterwards: made once
    await expect.poll(() => creations.made.length).toBe(1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    creations.stop();
    expect(creations.made).toEqual([bridges[0]?.id]);
  }, 60_000);

  it("with twins: the oldest is kept and used by id, a twin goes once no container is on it", async () => {
    const id = projectId("twins");
    const oldest = await twin(id);
    const younger = await twin(id);
    // a container an older version created on the younger twin (created, not started)
    const onYounger = await docker.createContainer({
      Image: "invariant-base:bookworm",
      Cmd: ["true"],
      HostConfig: { NetworkMode: younger },
    });
    expect(bridgesOf(id).map((bridge) => bridge.id)).toEqual([oldest, younger]);
    await expect(docker.getNetwork(projectNetworkName(id)).inspect()).rejects.toThrow(/ambiguous/);

    const probe = await runtime.createContainer(spec(id, "exit 0"));
    containers.push(probe);
    expect((await runtime.runToExit(probe, () => undefined)).exitCode).toBe(0);
    const info = await docker.getContainer(probe).inspect();
    expect(info.HostConfig.NetworkMode).toBe(oldest);
    expect(info.NetworkSettings.Networks[projectNetworkName(id)]?.NetworkID).toBe(oldest);
    // the younger twin has a container on it: it stays (the container would not start without it)
    expect(bridgesOf(id).map((bridge) => bridge.id)).toEqual([oldest, younger]);
    expect(await ensureProjectNetwork({ docker, projectId: id })).toBe(oldest);

    await onYounger.remove();
    expect(await ensureProjectNetwork({ docker, projectId: id })).toBe(oldest);
    expect(bridgesOf(id).map((bridge) => bridge.id)).toEqual([oldest]);
    // and the bridge goes with its last container
    await runtime.removeContainer(probe);
    expect(bridgesOf(id)).toEqual([]);
  }, 60_000);

  it("pruned between a container's create and start (docker network prune) is made again, and the container joins it", async () => {
    const id = projectId("pruned");
    const probe = await runtime.createContainer(spec(id, "exit 0"));
    containers.push(probe);
    const [first] = bridgesOf(id);
    await docker.getNetwork(first?.id ?? "").remove(); // Docker lets a created container's network go
    expect((await runtime.runToExit(probe, () => undefined)).exitCode).toBe(0);
    const [again] = bridgesOf(id);
    expect(again?.id).not.toBe(first?.id);
    const info = await docker.getContainer(probe).inspect();
    expect(Object.values(info.NetworkSettings.Networks).map((network) => network.NetworkID)).toEqual([again?.id]);
  }, 60_000);

  it("left idle (a trial that never got its container) is removed by the reconcile, other networks are not", async () => {
    const id = projectId("idle");
    const busy = projectId("busy");
    const idle = await ensureProjectNetwork({ docker, projectId: id });
    const unlabelled = await docker.createNetwork({ Name: `${projectNetworkName(projectId("not-ours"))}` });
    const sleeper = await runtime.createContainer(spec(busy, "sleep 30"));
    containers.push(sleeper);
    await runtime.startContainer(sleeper);

    const removed = await runtime.removeIdleProjectNetworks();
    // gone after the reconcile: this one's, or (one engine) the same reconcile of another test file's worker
    // that ran in between, which then leaves it out of this call's list
    expect(bridgesOf(id).map((bridge) => bridge.id)).not.toContain(idle);
    expect(removed).not.toContain(projectNetworkName(busy));
    expect(bridgesOf(busy)).toHaveLength(1);
    expect((await docker.getNetwork(unlabelled.id).inspect()).Id).toBe(unlabelled.id);
  }, 60_000);
});
