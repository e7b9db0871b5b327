import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { BASE_IMAGE, tempDir } from "../../../../test/support/environment-harness";
import type { ContainerSpec, Mount } from "./container-spec";
import { createDockerRuntime } from "./docker-runtime";
import { checkMounts, dataDirMountPolicy } from "./mount-policy";

/** The runtime's mount allowlist on the real Docker engine: refused mounts never become containers. */
const dataDir = tempDir("mount-policy");
const outside = tempDir("mount-policy-outside");
const caBundle = path.join(outside, "ca.crt");
fs.writeFileSync(caBundle, "not a secret\n");
const policy = dataDirMountPolicy({ dataDir, readOnlyPaths: [caBundle] });
const runtime = createDockerRuntime({ mountPolicy: policy, hostCaBundle: null });
const unconfigured = createDockerRuntime({ hostCaBundle: null });
const PROJECT = `p-mount-policy-${process.pid}`;
const created: string[] = [];
afterAll(async () => {
  for (const id of created) await runtime.removeContainer(id);
});

const limits = { cpus: 0.5, memoryBytes: 128 * 1024 * 1024, swapBytes: 0, pids: 50 };
function spec(mounts: Mount[]): ContainerSpec {
  return {
    image: BASE_IMAGE,
    command: ["true"],
    labels: { project: PROJECT, role: "probe" },
    limits,
    network: "none",
    mounts,
  };
}
const bind = (hostPath: string, readOnly = false, containerPath = "/mnt/x"): Mount => ({
  hostPath,
  containerPath,
  readOnly,
});

async function ourContainers(): Promise<number> {
  return (await runtime.listManagedContainers()).filter((c) => c.labels["invariant.project"] === PROJECT).length;
}

describe("the runtime's mount policy", () => {
  it("creates a container that mounts a workspace of the data dir (the allowed case)", async () => {
    const workspace = path.join(dataDir, "workspaces", "ws-0123456789abcdef01234567", "tree");
    fs.mkdirSync(workspace, { recursive: true });
    created.push(await runtime.createContainer(spec([bind(workspace), bind(caBundle, true, "/mnt/ca.crt")])));
    expect(await ourContainers()).toBe(1);
  });

  it.each([
    ["/etc", "/etc"],
    ["the user's home", os.homedir()],
    ["a folder in the user's home", path.join(os.homedir(), ".ssh")],
    ["the host root", "/"],
    ["a folder outside the data dir", outside],
    ["the data dir itself (its database, its token)", dataDir],
    ["a data-dir folder containers never get", path.join(dataDir, "redis")],
    ["a path that climbs out with ..", path.join(dataDir, "workspaces", "..", "..", "etc")],
    ["a relative path", "workspaces/ws-1"],
    ["the Docker socket", "/var/run/docker.sock"],
  ])("refuses %s before any container is created", async (_what, hostPath) => {
    await expect(runtime.createContainer(spec([bind(hostPath)]))).rejects.toThrow(/Refusing to mount/);
    await expect(runtime.createContainer(spec([bind(hostPath, true)]))).rejects.toThrow(/Refusing to mount/);
    expect(await ourContainers()).toBe(1);
  });

  it("refuses a symlink inside the data dir that leads to /etc, and a read-only path mounted read-write", async () => {
    const link = path.join(dataDir, "workspaces", "escape");
    fs.symlinkSync("/etc", link);
    await expect(runtime.createContainer(spec([bind(link, true)]))).rejects.toThrow(
      /outside|only folders of the data dir/,
    );
    await expect(runtime.createContainer(spec([bind(caBundle, false)]))).rejects.toThrow(/Refusing to mount/);
    expect(await ourContainers()).toBe(1);
  });

  it("refuses an overlay whose scratch layers lie outside the data dir", () => {
    const lower = path.join(dataDir, "dependencies", "deps-0123456789abcdef01234567", "tree", "node_modules");
    const overlay = { upperDir: path.join(outside, "upper"), workDir: path.join(outside, "work") };
    expect(() => checkMounts([{ ...bind(lower, true), overlay }], { policy, hostHome: os.homedir() })).toThrow(
      /Refusing to mount .*upper/,
    );
  });

  it("without a policy still refuses /etc, the home directory and the Docker socket", async () => {
    for (const hostPath of ["/etc", "/etc/ssl", os.homedir(), "/run/docker.sock"])
      await expect(unconfigured.createContainer(spec([bind(hostPath, true)]))).rejects.toThrow(/Refusing to mount/);
    expect(await ourContainers()).toBe(1);
  });

  it("says what was wrong and what is allowed", () => {
    expect(() => checkMounts([bind("/etc")], { policy, hostHome: os.homedir() })).toThrow(
      `Refusing to mount "/etc" at /mnt/x: containers get only folders of the data dir (${path.join(dataDir, "workspaces")}`,
    );
  });
});
