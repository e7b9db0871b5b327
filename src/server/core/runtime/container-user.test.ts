import { describe, expect, it } from "vitest";
import { containerIdentity, resolveHostUser, ROOT_CAPABILITIES, withHomeHandover } from "./container-user";
import type { ContainerSpec } from "./container-spec";

const limits = { cpus: 1, memoryBytes: 1 << 30, swapBytes: 0, pids: 64 };
const spec = (overrides: Partial<ContainerSpec> = {}): ContainerSpec => ({
  image: "img",
  command: ["true"],
  labels: { project: "p", role: "agent" },
  limits,
  network: "none",
  ...overrides,
});

describe("the host user containers run as", () => {
  it("is the worker's own uid:gid when it is not root", () => {
    expect(resolveHostUser({ uid: 1000, gid: 1001, env: {} })).toEqual({ uid: 1000, gid: 1001, source: "worker" });
  });

  it("for a root worker: INVARIANT_CONTAINER_USER, else the user who ran sudo, else nobody:nogroup — never root", () => {
    expect(resolveHostUser({ uid: 0, gid: 0, env: { INVARIANT_CONTAINER_USER: "1500:1600" } })).toEqual({
      uid: 1500,
      gid: 1600,
      source: "setting",
    });
    expect(resolveHostUser({ uid: 0, gid: 0, env: { SUDO_UID: "1000", SUDO_GID: "1000" } })).toEqual({
      uid: 1000,
      gid: 1000,
      source: "sudo",
    });
    expect(resolveHostUser({ uid: 0, gid: 0, env: { SUDO_UID: "0", SUDO_GID: "0" } })).toMatchObject({
      uid: 65534,
      source: "stand-in",
    });
    expect(resolveHostUser({ uid: 0, gid: 0, env: {} })).toEqual({ uid: 65534, gid: 65534, source: "stand-in" });
  });

  it("refuses a setting that is not uid:gid, root, or another user's for a worker that is not root", () => {
    expect(() => resolveHostUser({ uid: 0, gid: 0, env: { INVARIANT_CONTAINER_USER: "alice" } })).toThrow(
      /must be uid:gid/,
    );
    expect(() => resolveHostUser({ uid: 0, gid: 0, env: { INVARIANT_CONTAINER_USER: "0:0" } })).toThrow(
      /cannot be root.*Run as root/,
    );
    expect(() => resolveHostUser({ uid: 1000, gid: 1000, env: { INVARIANT_CONTAINER_USER: "2000:2000" } })).toThrow(
      /only its own files/,
    );
  });
});

describe("a container's identity", () => {
  const user = { uid: 1000, gid: 1000 };

  it("runs agents, tests, sessions and probes as the user with no capabilities", () => {
    for (const role of ["agent", "evaluation", "session", "probe"] as const)
      expect(containerIdentity({ spec: spec({ labels: { project: "p", role } }), user })).toEqual({
        user,
        root: false,
        capAdd: [],
        homeOwner: null,
        filesOwner: user,
      });
  });

  it("runs builds and 'Run as root' projects as root with the package managers' capabilities", () => {
    const build = containerIdentity({ spec: spec({ labels: { project: "p", role: "prepare" } }), user });
    expect(build).toMatchObject({ user: { uid: 0, gid: 0 }, root: true, homeOwner: user, filesOwner: user });
    expect(build.capAdd).toEqual([...ROOT_CAPABILITIES]);
    // a project that runs as root keeps root's home as it is
    const rootProject = containerIdentity({
      spec: spec({ labels: { project: "p", role: "prepare" }, runAsRoot: true }),
      user,
    });
    expect(rootProject.homeOwner).toBeNull();
    expect(containerIdentity({ spec: spec({ runAsRoot: true }), user })).toMatchObject({ root: true, homeOwner: null });
  });

  it("a build hands /root over only when its command succeeded", () => {
    const [shell, flag, script, name, ...rest] = withHomeHandover(["/bin/sh", "-c", "apt-get install -y jq"], user);
    expect([shell, flag, name]).toEqual(["/bin/sh", "-c", "invariant-build"]);
    expect(rest).toEqual(["/bin/sh", "-c", "apt-get install -y jq"]);
    expect(script).toContain('if [ "$rc" -eq 0 ] && [ -d /root ]; then find /root -xdev');
    expect(script).toContain("-exec chown -h 1000:1000 {} +");
  });
});
