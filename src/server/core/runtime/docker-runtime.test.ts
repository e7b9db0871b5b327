import { randomBytes } from "node:crypto";
import os from "node:os";
import { afterAll, describe, expect, it } from "vitest";
import { BASE_IMAGE, dockerInspect, tempDir } from "../../../../test/support/environment-harness";
import { createDockerRuntime } from "./docker-runtime";

const runtime = createDockerRuntime();
const created: string[] = [];
afterAll(async () => {
  for (const id of created) await runtime.removeContainer(id);
});

const limits = { cpus: 0.5, memoryBytes: 256 * 1024 * 1024, swapBytes: 64 * 1024 * 1024, pids: 100 };
// a project of this run's own: its internet-mode bridge is named after it, and other runs on the engine remove theirs
const PROJECT = `p-test-${randomBytes(4).toString("hex")}`;

async function run(network: "none" | "internet", script: string) {
  const id = await runtime.createContainer({
    image: BASE_IMAGE,
    command: ["sh", "-c", script],
    labels: { project: PROJECT, role: "probe", study: "s1", trial: "t1" },
    limits,
    network,
  });
  created.push(id);
  let output = "";
  const { exitCode } = await runtime.runToExit(id, (chunk) => (output += chunk), { timeoutMs: 30_000 });
  return { id, exitCode, output };
}

// /proc/net/route lists routes; a default route has destination 00000000
const DEFAULT_ROUTES = "awk 'NR>1 && $2==\"00000000\"' /proc/net/route | wc -l";

// what any ContainerRuntime does (run, time out, exec, TTY, commit, images, networks) is checked by the contract suite,
// docker-runtime.contract.test.ts; this file keeps what is Docker's own (HostConfig, routes, mount refusals)
describe("containers through the runtime", () => {
  it("carry the project's limits, no-new-privileges, an init process, our labels and no mounts we did not choose", async () => {
    const { id, exitCode } = await run("none", "true");
    expect(exitCode).toBe(0);
    const info = dockerInspect("container", id) as {
      HostConfig: Record<string, unknown>;
      Config: { Labels: Record<string, string> };
      Mounts: unknown[];
    };
    expect(info.HostConfig).toMatchObject({
      NanoCpus: 500_000_000,
      Memory: limits.memoryBytes,
      MemorySwap: limits.memoryBytes + limits.swapBytes,
      PidsLimit: 100,
      Init: true,
      Privileged: false,
      NetworkMode: "none",
    });
    expect(info.HostConfig.SecurityOpt).toEqual(["no-new-privileges:true"]);
    expect(info.Config.Labels).toMatchObject({
      "invariant.managed": "true",
      "invariant.project": PROJECT,
      "invariant.role": "probe",
      "invariant.study": "s1",
      "invariant.trial": "t1",
    });
    expect(info.Mounts).toEqual([]);
  });

  it("of a committed image do not inherit the labels of the run it was committed from", async () => {
    const worker = { id: "w-labels", host: "h", pid: 1, instance: "i-labels" };
    const agent = await runtime.createContainer({
      image: BASE_IMAGE,
      command: ["true"],
      labels: { project: PROJECT, role: "agent", study: "s1", trial: "t1", worker },
      limits,
      network: "none",
    });
    created.push(agent);
    const image = await runtime.commitContainer(agent, {
      repository: `invariant-test/${PROJECT}`,
      tag: "labels",
      labels: { "invariant.run": "t1-1" },
    });
    try {
      const session = await runtime.createContainer({
        image,
        command: ["true"],
        labels: { project: PROJECT, role: "session", session: "s-labels" },
        limits,
        network: "none",
      });
      created.push(session);
      const { Config } = dockerInspect("container", session) as { Config: { Labels: Record<string, string> } };
      expect(Config.Labels).toMatchObject({
        "invariant.role": "session",
        "invariant.session": "s-labels",
        "invariant.study": "",
        "invariant.trial": "",
        "invariant.run": "",
        "invariant.worker": "",
        "invariant.worker-pid": "",
        "invariant.instance": "",
      });
    } finally {
      for (const id of created.splice(0)) await runtime.removeContainer(id);
      await runtime.removeImage(image);
    }
  });

  it("in network mode none have only loopback and no default route; in internet mode they do", async () => {
    const isolated = await run("none", `${DEFAULT_ROUTES}; ls /sys/class/net`);
    expect(isolated.output.trim().split(/\s+/)).toEqual(["0", "lo"]);
    const open = await run("internet", DEFAULT_ROUTES);
    expect(open.output.trim()).toBe("1");
  });

  it("enforce the process limit", async () => {
    const { output } = await run(
      "none",
      "for i in $(seq 1 150); do sleep 1 & done 2>&1 | grep -c 'fork\\|Resource' || true",
    );
    expect(Number(output.trim().split("\n").at(-1))).toBeGreaterThan(0);
  });

  it("refuse the Docker socket and host home directories as mounts", async () => {
    const spec = {
      image: BASE_IMAGE,
      command: ["true"],
      labels: { project: "p", role: "probe" as const },
      limits,
      network: "none" as const,
    };
    await expect(
      runtime.createContainer({
        ...spec,
        mounts: [{ hostPath: "/var/run/docker.sock", containerPath: "/var/run/docker.sock", readOnly: true }],
      }),
    ).rejects.toThrow(/never get the Docker socket/);
    await expect(
      runtime.createContainer({
        ...spec,
        mounts: [{ hostPath: os.homedir(), containerPath: "/home", readOnly: true }],
      }),
    ).rejects.toThrow(/host home/);
    const workspace = tempDir("mount");
    const id = await runtime.createContainer({
      ...spec,
      mounts: [{ hostPath: workspace, containerPath: "/workspace", readOnly: false }],
    });
    created.push(id);
    const info = dockerInspect("container", id) as { Mounts: { Source: string; Destination: string }[] };
    expect(info.Mounts.map((m) => [m.Source, m.Destination])).toEqual([[workspace, "/workspace"]]);
  });
});
