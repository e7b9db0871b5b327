import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BASE_IMAGE, dockerInspect, tempDir } from "../../../../test/support/environment-harness";
import { LABEL, type ContainerSpec } from "./container-spec";
import { createDockerRuntime } from "./docker-runtime";
import { projectNetworkName } from "./project-network";

/**
 * What every container gets from the runtime (issue 15 item 4), on the real engine: the host user's
 * uid:gid (here a stand-in, 4321:4321) or root with only package managers' capabilities, `CapDrop: ALL`,
 * no new privileges, the nofile ulimit, a bridge of its project's own in mode internet, a disk budget
 * checked while it runs — and, from inside, what the dropped capabilities no longer allow.
 */
const USER = { uid: 4321, gid: 4321 };
const runtime = createDockerRuntime({ hostUser: USER, diskCheckIntervalMs: 200, hostCaBundle: null });
const created: string[] = [];
const run = randomBytes(4).toString("hex");
afterAll(async () => {
  for (const id of created) await runtime.removeContainer(id);
});

const limits = { cpus: 1, memoryBytes: 512 * 1024 * 1024, swapBytes: 0, pids: 128, openFiles: 4096 };

function spec(overrides: Partial<ContainerSpec> & { script: string }): ContainerSpec {
  const { script, ...rest } = overrides;
  return {
    image: BASE_IMAGE,
    command: ["/bin/sh", "-c", script],
    labels: { project: `sec-${run}`, role: "evaluation" },
    limits,
    network: "none",
    ...rest,
  };
}

async function runIt(options: Partial<ContainerSpec> & { script: string }) {
  const id = await runtime.createContainer(spec(options));
  created.push(id);
  let output = "";
  const result = await runtime.runToExit(id, (chunk) => (output += chunk), { timeoutMs: 60_000 });
  return { id, output, ...result };
}

interface Inspected {
  Config: { User: string; Labels: Record<string, string> };
  HostConfig: {
    CapDrop: string[] | null;
    CapAdd: string[] | null;
    SecurityOpt: string[];
    Ulimits: { Name: string; Soft: number; Hard: number }[];
    NetworkMode: string;
  };
  NetworkSettings: { Networks: Record<string, { IPAddress: string }> };
}

const inspect = (id: string) => dockerInspect("container", id) as unknown as Inspected;

// each line: what was tried, then "denied" or "allowed"
const TRIES = [
  'try() { what=$1; shift; if "$@" >/dev/null 2>&1; then echo "$what allowed"; else echo "$what denied"; fi; }',
  "touch /tmp/f",
  "try chown chown 1:1 /tmp/f",
  "try mknod mknod /tmp/null c 1 3",
  "try raw-socket perl -MSocket -e 'socket(my $s, PF_INET, SOCK_RAW, 1) or exit 1'",
  "try chroot chroot / true",
  "try setuid perl -e '$< = $> = 0; exit($> == 0 ? 0 : 1)'",
  "grep -E '^(CapEff|CapBnd|NoNewPrivs):' /proc/self/status | tr -s '\\t ' ' '",
  'echo "uid $(id -u) gid $(id -g) nofile $(ulimit -n)"',
].join("\n");

describe("every container, whatever its role", () => {
  it("runs as the host user's uid:gid with no capabilities, no new privileges and the nofile ulimit", async () => {
    const { id, output, exitCode } = await runIt({ script: TRIES });
    expect(exitCode).toBe(0);
    const info = inspect(id);
    expect(info.Config.User).toBe("4321:4321");
    expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
    expect(info.HostConfig.CapAdd ?? []).toEqual([]);
    expect(info.HostConfig.SecurityOpt).toEqual(["no-new-privileges:true"]);
    expect(info.HostConfig.Ulimits).toEqual([{ Name: "nofile", Soft: 4096, Hard: 4096 }]);
    expect(info.HostConfig.NetworkMode).toBe("none");
    // from inside: what the dropped capabilities (and not being root) no longer allow
    for (const denied of ["chown", "mknod", "raw-socket", "chroot", "setuid"])
      expect(output).toContain(`${denied} denied`);
    expect(output).toContain("CapEff: 0000000000000000");
    expect(output).toContain("CapBnd: 0000000000000000");
    expect(output).toContain("NoNewPrivs: 1");
    expect(output).toContain("uid 4321 gid 4321 nofile 4096");
  });

  it("with 'Run as root' (and in builds) runs as root keeping only what package managers need", async () => {
    const { id, output } = await runIt({ script: TRIES, runAsRoot: true });
    const info = inspect(id);
    expect(info.Config.User).toBe("0:0");
    expect(info.HostConfig.CapDrop).toEqual(["ALL"]);
    expect([...(info.HostConfig.CapAdd ?? [])].sort()).toEqual(
      ["CHOWN", "DAC_OVERRIDE", "FOWNER", "FSETID", "KILL", "SETGID", "SETUID"].sort(),
    );
    expect(info.HostConfig.SecurityOpt).toEqual(["no-new-privileges:true"]);
    // dpkg needs chown and apt its setuid to _apt; device nodes, raw sockets and chroot stay out of reach
    expect(output).toContain("chown allowed");
    expect(output).toContain("setuid allowed");
    for (const denied of ["mknod", "raw-socket", "chroot"]) expect(output).toContain(`${denied} denied`);
    // CHOWN, DAC_OVERRIDE, FOWNER, FSETID, KILL, SETGID, SETUID: bits 0, 1, 3, 4, 5, 6, 7
    expect(output).toContain("CapBnd: 00000000000000fb");
    expect(output).toContain("NoNewPrivs: 1");
    expect(output).toContain("uid 0 gid 0");

    const build = await runIt({ script: "id -u", labels: { project: `sec-${run}`, role: "prepare" } });
    expect(inspect(build.id).Config.User).toBe("0:0");
    expect(build.output.trim()).toBe("0");
  });

  it("in mode internet sits on its project's own bridge: no traffic to another project's containers, nor between its own", async () => {
    const [a, b] = [`sec-a-${run}`, `sec-b-${run}`];
    const server = await runtime.createContainer(
      spec({
        labels: { project: a, role: "session" },
        network: "internet",
        script: `exec node -e 'require("net").createServer((s) => s.end("hello\\n")).listen(7000)'`,
      }),
    );
    created.push(server);
    await runtime.startContainer(server);
    const address = inspect(server).NetworkSettings.Networks[projectNetworkName(a)]?.IPAddress ?? "";
    expect(address).toMatch(/^\d+\.\d+\.\d+\.\d+$/);
    // the host reaches it (the control: the server is up)
    await expect.poll(() => reach(address), { timeout: 10_000 }).toBe("hello");

    const probe = `node -e 'const s = require("net").connect(7000, "${address}"); s.setTimeout(2000, () => { console.log("unreachable"); process.exit(0) }); s.on("data", (d) => { console.log("reached " + d); process.exit(0) }); s.on("error", (e) => { console.log("unreachable " + e.code); process.exit(0) })'`;
    const fromB = await runIt({ labels: { project: b, role: "agent" }, network: "internet", script: probe });
    const fromA = await runIt({ labels: { project: a, role: "agent" }, network: "internet", script: probe });
    // created on the bridge's id, never its name (which a twin network may share)
    expect(inspect(fromB.id).HostConfig.NetworkMode).toBe(inspectNetwork(projectNetworkName(b))?.Id);
    expect(inspect(fromA.id).HostConfig.NetworkMode).toBe(inspectNetwork(projectNetworkName(a))?.Id);
    expect(projectNetworkName(a)).not.toBe(projectNetworkName(b));
    expect(fromB.output).toMatch(/^unreachable/);
    expect(fromA.output).toMatch(/^unreachable/);
    const bridge = inspectNetwork(projectNetworkName(a));
    expect(bridge?.Driver).toBe("bridge");
    expect(bridge?.Labels).toMatchObject({ [LABEL.managed]: "true", [LABEL.project]: a });
    expect(bridge?.Options["com.docker.network.bridge.enable_icc"]).toBe("false");

    // a bridge lives while containers use it
    for (const id of [server, fromA.id, fromB.id]) await runtime.removeContainer(id);
    expect(inspectNetwork(projectNetworkName(a))).toBeNull();
    expect(inspectNetwork(projectNetworkName(b))).toBeNull();
  });

  it("stops a container that writes past its disk budget, in its own layer or in a writable folder", async () => {
    const budget = 64 * 1024 * 1024;
    const slowWriter = (target: string) =>
      `i=0; while [ $i -lt 60 ]; do dd if=/dev/zero of=${target}/fill-$i bs=1M count=8 2>/dev/null; i=$((i+1)); sleep 0.05; done; echo wrote-everything`;
    const layer = await runIt({ script: slowWriter("/tmp"), diskBudgetBytes: budget });
    expect(layer.overDisk?.budgetBytes).toBe(budget);
    expect(layer.overDisk?.usedBytes).toBeGreaterThan(budget);
    expect(layer.output).not.toContain("wrote-everything");

    const workspace = tempDir("disk-budget");
    fs.writeFileSync(path.join(workspace, "existing.bin"), Buffer.alloc(80 * 1024 * 1024, 1)); // not counted: it was there
    const folder = await runIt({
      script: slowWriter("/workspace"),
      diskBudgetBytes: budget,
      mounts: [{ hostPath: workspace, containerPath: "/workspace", readOnly: false }],
    });
    expect(folder.overDisk?.usedBytes).toBeGreaterThan(budget);
    expect(folder.output).not.toContain("wrote-everything");

    const within = await runIt({
      script: "dd if=/dev/zero of=/tmp/small bs=1M count=8 2>/dev/null; sleep 1; echo done",
      diskBudgetBytes: budget,
    });
    expect(within.overDisk).toBeNull();
    expect(within.output.trim()).toBe("done");
  });
});

describe("files a container writes on the host", () => {
  it("a root worker gives the user its writable folders; what a root container creates is handed back", async () => {
    const workspace = tempDir("owned");
    fs.writeFileSync(path.join(workspace, "from-snapshot.txt"), "x");
    const mounts = [{ hostPath: workspace, containerPath: "/workspace", readOnly: false }];
    await runIt({ script: "echo agent > /workspace/by-user.txt && mkdir -p /workspace/cache/deep", mounts });
    for (const name of ["from-snapshot.txt", "by-user.txt", "cache/deep", "."])
      expect(owner(path.join(workspace, name))).toBe("4321:4321");

    const root = await runIt({
      script: "echo root > /workspace/by-root.txt && mkdir /workspace/root-dir",
      mounts,
      runAsRoot: true,
    });
    await runtime.removeContainer(root.id);
    expect(owner(path.join(workspace, "by-root.txt"))).toBe("4321:4321");
    expect(owner(path.join(workspace, "root-dir"))).toBe("4321:4321");
  });

  it("a worker that is not root hands a root container's files back through a short root container", async () => {
    const notRoot = createDockerRuntime({ hostUser: USER, workerUser: USER, hostCaBundle: null });
    const outputs = tempDir("handback");
    const id = await notRoot.createContainer(
      spec({
        script: "mkdir -p /out/a/b && echo x > /out/a/b/file && chmod 700 /out/a",
        runAsRoot: true,
        mounts: [{ hostPath: outputs, containerPath: "/out", readOnly: false }],
      }),
    );
    await notRoot.runToExit(id, () => undefined);
    expect(owner(path.join(outputs, "a/b/file"))).toBe("0:0");
    await notRoot.removeContainer(id);
    for (const name of ["a", "a/b", "a/b/file"]) expect(owner(path.join(outputs, name))).toBe("4321:4321");
  });

  it("when the worker is root, a spec's userFrom path names who the container runs as (a direct session: the project's owner)", async () => {
    const project = tempDir("project-owner");
    fs.chownSync(project, 2345, 2346);
    const { id, output } = await runIt({ script: "id -u; id -g", userFrom: project });
    expect(inspect(id).Config.User).toBe("2345:2346");
    expect(output.trim().split(/\s+/)).toEqual(["2345", "2346"]);
    const rootOwned = tempDir("root-project");
    const fallback = await runIt({ script: "id -u", userFrom: rootOwned });
    expect(fallback.output.trim()).toBe("4321");
  });
});

describe("builds hand the environment's home to the user later containers run as", () => {
  it("labels the committed image, and its containers keep HOME=/root; older images get HOME=/tmp", async () => {
    const build = await runtime.createContainer(
      spec({
        labels: { project: `sec-${run}`, role: "prepare" },
        script: "mkdir -p /root/.config/tool && echo cfg > /root/.config/tool/settings",
      }),
    );
    created.push(build);
    expect((await runtime.runToExit(build, () => undefined)).exitCode).toBe(0);
    const repository = `invariant-test/security-${run}`;
    const image = await runtime.commitContainer(build, {
      repository,
      tag: "v1",
      labels: { [LABEL.project]: `sec-${run}` },
    });
    let after: Awaited<ReturnType<typeof runIt>> | null = null;
    try {
      expect((await runtime.inspectImage(image))?.labels[LABEL.homeOwner]).toBe("4321:4321");
      after = await runIt({
        image,
        env: { HOME: "/root" },
        script:
          'echo "home $HOME"; cat /root/.config/tool/settings; stat -c %u:%g /root; touch /root/written && echo writable',
      });
      expect(after.output).toContain("home /root");
      expect(after.output).toContain("cfg");
      expect(after.output).toContain("4321:4321");
      expect(after.output).toContain("writable");
      const older = await runIt({ env: { HOME: "/root" }, script: 'echo "home $HOME"' });
      expect(older.output.trim()).toBe("home /tmp");
    } finally {
      if (after) await runtime.removeContainer(after.id);
      await runtime.removeImage(image);
    }
  });
});

function owner(file: string): string {
  const stat = fs.lstatSync(file);
  return `${stat.uid}:${stat.gid}`;
}

/** The docker CLI's view of a network (an independent check), or null when there is none. */
function inspectNetwork(
  name: string,
): { Id: string; Driver: string; Labels: Record<string, string>; Options: Record<string, string> } | null {
  const result = spawnSync("docker", ["network", "inspect", name], { encoding: "utf8" });
  return result.status === 0 ? ((JSON.parse(result.stdout) as ReturnType<typeof inspectNetwork>[])[0] ?? null) : null;
}

function reach(address: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(7000, address);
    socket.setTimeout(1000, () => (socket.destroy(), resolve("timeout")));
    socket.on("data", (data) => (socket.destroy(), resolve(data.toString().trim())));
    socket.on("error", () => resolve("error"));
  });
}
