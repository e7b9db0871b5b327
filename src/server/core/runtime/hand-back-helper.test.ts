import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BASE_IMAGE, tempDir } from "../../../../test/support/environment-harness";
import { escapeScript, expectEscapesRefused } from "../../../../test/support/escape-suite";
import type { ContainerSpec } from "./container-spec";
import { createDockerRuntime } from "./docker-runtime";
import { HELPER_REPOSITORY } from "./helper-image";

/**
 * Issue 23 point 1 on the real engine: a worker that is not root hands back what a root container left
 * in its folders through a short root container. That helper used to start from the project's own image
 * with CAP_DAC_READ_SEARCH and run the `find` on that image's PATH — so a build or a postinstall that
 * replaced /usr/bin/find (or planted /etc/ld.so.preload) ran as root with the capability that permits
 * open_by_handle_at out of a bind mount. Every container is recorded as the engine created it.
 */
const USER = { uid: 4321, gid: 4321 };
const run = randomBytes(4).toString("hex");

interface Created {
  Id: string;
  Image: string;
  Config: { Image: string; Entrypoint: string[] | null; Cmd: string[]; User: string };
  HostConfig: {
    CapAdd: string[] | null;
    CapDrop: string[] | null;
    Memory: number;
    PidsLimit: number | null;
    ReadonlyRootfs: boolean;
    NetworkMode: string;
    SecurityOpt: string[] | null;
  };
}

/** The engine client, recording the engine's inspect data of every container created through it. */
class RecordingDocker extends Docker {
  readonly created: Created[] = [];
  override async createContainer(options: Docker.ContainerCreateOptions): Promise<Docker.Container> {
    const container = await super.createContainer(options);
    this.created.push((await container.inspect()) as unknown as Created);
    return container;
  }
}

const client = new RecordingDocker();
const runtime = createDockerRuntime({ client, hostUser: USER, workerUser: USER, hostCaBundle: null });
const images: string[] = [];
let hostileImage = "";

/** A project image whose build replaced find and chown and planted a preload: each leaves a mark where it runs. */
const HOSTILE_BUILD = [
  "mark='#!/bin/sh\necho planted > /hand-back/0/PWNED 2>/dev/null; for d in /hand-back/*; do echo planted > $d/PWNED; done; exit 0\n'",
  'for tool in /usr/bin/find /usr/bin/chown /bin/find /bin/chown; do [ -e "$tool" ] && printf "$mark" > "$tool" && chmod 755 "$tool"; done',
  "echo /nonexistent/preload.so > /etc/ld.so.preload",
].join("\n");

beforeAll(async () => {
  const build = await runtime.createContainer(spec({ script: HOSTILE_BUILD, runAsRoot: true }));
  expect((await runtime.runToExit(build, () => undefined)).exitCode).toBe(0);
  hostileImage = await runtime.commitContainer(build, {
    repository: `invariant-test/hostile-${run}`,
    tag: "v1",
    labels: {},
  });
  images.push(hostileImage);
  await runtime.removeContainer(build);
}, 120_000);

afterAll(async () => {
  for (const image of images) await runtime.removeImage(image).catch(() => undefined);
});

function spec(overrides: Partial<ContainerSpec> & { script: string }): ContainerSpec {
  const { script, ...rest } = overrides;
  return {
    image: BASE_IMAGE,
    command: ["/bin/sh", "-c", script],
    labels: { project: `hostile-${run}`, role: "agent" },
    limits: { cpus: 1, memoryBytes: 256 * 1024 * 1024, swapBytes: 0, pids: 128 },
    network: "none",
    ...rest,
  };
}

function owner(file: string): string {
  const stat = fs.lstatSync(file);
  return `${stat.uid}:${stat.gid}`;
}

describe("the hand-back after a root container, for a worker that is not root", () => {
  it("runs the product's own helper image, not the project's replaced find, with no DAC_READ_SEARCH", async () => {
    const outputs = tempDir("hostile-handback");
    client.created.length = 0;
    const id = await runtime.createContainer(
      spec({
        image: hostileImage,
        runAsRoot: true,
        script:
          "mkdir -p /out/a/b && echo x > /out/a/b/file && chmod 700 /out/a && cp /bin/sh /out/suid && chmod 4755 /out/suid",
        mounts: [{ hostPath: outputs, containerPath: "/out", readOnly: false }],
      }),
    );
    expect((await runtime.runToExit(id, () => undefined)).exitCode).toBe(0);
    expect(owner(path.join(outputs, "a/b/file"))).toBe("0:0");
    await runtime.removeContainer(id);

    // the planted find never ran: no mark, and what root made is the host user's, the set-uid bit gone
    expect(fs.existsSync(path.join(outputs, "PWNED"))).toBe(false);
    for (const name of ["a", "a/b", "a/b/file", "suid"]) expect(owner(path.join(outputs, name))).toBe("4321:4321");
    expect(fs.statSync(path.join(outputs, "suid")).mode & 0o6000).toBe(0);

    const helpers = client.created.filter((info) => info.Id !== id);
    expect(helpers).toHaveLength(1);
    const [helper] = helpers as [Created];
    const helperImage = await client.getImage(helper.Image).inspect();
    expect(helperImage.RepoTags.some((tag) => tag.startsWith(`${HELPER_REPOSITORY}:`))).toBe(true);
    expect(helper.Image).not.toBe(hostileImage);
    expect(helper.Config.Image).toBe(helper.Image); // created by id, not by a tag someone could move
    expect(helper.Config.Entrypoint).toEqual(["/usr/bin/find"]);
    expect(helper.Config.Cmd).toContain("/usr/bin/chown");
    expect(helper.Config.User).toBe("0:0");
    expect(helper.HostConfig.CapDrop).toEqual(["ALL"]);
    expect([...(helper.HostConfig.CapAdd ?? [])].sort()).toEqual(["CHOWN", "DAC_OVERRIDE"]);
    expect(helper.HostConfig.ReadonlyRootfs).toBe(true);
    expect(helper.HostConfig.NetworkMode).toBe("none");
    expect(helper.HostConfig.Memory).toBeGreaterThan(0);
    expect(helper.HostConfig.PidsLimit).toBeGreaterThan(0);
    expect(helper.HostConfig.SecurityOpt).toEqual(["no-new-privileges:true"]);
    // the helper image holds the two programs and their libraries: no shell to run anything else with
    expect(helperImage.Size).toBeLessThan(8 * 1024 * 1024);
  }, 120_000);

  it("no container the runtime creates holds DAC_READ_SEARCH; a root agent's own escapes are refused", async () => {
    const hostMarker = path.join(tempDir("host-only"), `marker-${run}`);
    fs.writeFileSync(hostMarker, "host secret\n");
    const workspace = tempDir("hostile-escape-workspace");
    client.created.length = 0;
    let output = "";
    const id = await runtime.createContainer(
      spec({
        runAsRoot: true,
        script: escapeScript({ hostMarker }),
        mounts: [{ hostPath: workspace, containerPath: "/workspace", readOnly: false }],
      }),
    );
    await runtime.runToExit(id, (chunk) => (output += chunk), { timeoutMs: 60_000 });
    await runtime.removeContainer(id);
    expectEscapesRefused(output, { uid: 0 });
    expect(client.created.length).toBeGreaterThanOrEqual(2); // the agent, and the helper after it
    for (const info of client.created) expect(info.HostConfig.CapAdd ?? []).not.toContain("DAC_READ_SEARCH");
  }, 120_000);
});
