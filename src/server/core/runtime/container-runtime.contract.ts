import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ContainerRuntime } from "./container-runtime";
import { LABEL, type ContainerSpec } from "./container-spec";

/**
 * The behaviour of a ContainerRuntime that the rest of the product relies on, as one Vitest suite any
 * implementation runs against its real backend: `describeContainerRuntime("docker", …)` in
 * docker-runtime.contract.test.ts; a second runtime (docs/scaling.md, "Kubernetes") passes the same.
 * What only one backend does (Docker's HostConfig, its bridges, mount refusals) stays in that backend's tests.
 */
export interface ContractSubject {
  runtime: ContainerRuntime;
  /** An image the runtime has, with a POSIX shell, sleep, head, wc, ls and stty (the product's base image). */
  image: string;
}

interface Contract {
  subject: ContractSubject;
  /** This run's mark: its project id, and the `invariant.test` label of every image it makes. */
  mark: string;
  project: string;
  containers: Set<string>;
  images: Set<string>;
}

const TEST_LABEL = "invariant.test";
const LIMITS = { cpus: 0.5, memoryBytes: 256 * 1024 * 1024, swapBytes: 0, pids: 100 };

async function create(contract: Contract, spec: Partial<ContainerSpec> & { command: string[] }): Promise<string> {
  const id = await contract.subject.runtime.createContainer({
    image: contract.subject.image,
    labels: { project: contract.project, role: "probe" },
    limits: LIMITS,
    network: "none",
    ...spec,
  });
  contract.containers.add(id);
  return id;
}

async function run(contract: Contract, id: string, timeoutMs = 30_000) {
  let output = "";
  const result = await contract.subject.runtime.runToExit(id, (chunk) => (output += chunk), { timeoutMs });
  return { ...result, output, lines: output.split(/\r?\n/).filter(Boolean) };
}

async function remove(contract: Contract, id: string): Promise<void> {
  await contract.subject.runtime.removeContainer(id);
  contract.containers.delete(id);
}

/** What this run made, removed even when a case failed halfway (every removal tolerates the already gone). */
async function cleanUp(contract: Contract): Promise<void> {
  const { runtime } = contract.subject;
  for (const id of contract.containers) await runtime.removeContainer(id).catch(() => undefined);
  const labelled = await runtime.listImages({ [TEST_LABEL]: contract.mark }).catch(() => []);
  for (const image of [...contract.images, ...labelled.map((found) => found.id)])
    await runtime.removeImage(image).catch(() => undefined);
  await runtime.removeProjectNetworks(contract.project).catch(() => undefined);
}

function lifecycleCases(contract: Contract): void {
  it("reports its engine: a version and a storage driver", async () => {
    const version = await contract.subject.runtime.version();
    expect(version.version).toMatch(/\d/);
    expect(version.apiVersion).toMatch(/\d/);
    expect(await contract.subject.runtime.storageDriver()).toMatch(/\w/);
  });

  it("runs a container to its exit: its output lines, its exit code, its labels while it exists", async () => {
    const { runtime } = contract.subject;
    const id = await create(contract, {
      command: ["sh", "-c", "echo first; echo second >&2; echo third; exit 3"],
      labels: { project: contract.project, role: "probe", study: "s-contract", trial: "t-contract" },
    });
    expect(await runtime.containerStatus(id)).toMatchObject({ running: false });
    const listed = (await runtime.listManagedContainers()).find((container) => container.id === id);
    expect(listed?.labels).toMatchObject({
      [LABEL.managed]: "true",
      [LABEL.project]: contract.project,
      [LABEL.role]: "probe",
      [LABEL.study]: "s-contract",
      [LABEL.trial]: "t-contract",
    });
    const result = await run(contract, id);
    expect(result).toMatchObject({ exitCode: 3, timedOut: false, overDisk: null });
    expect(result.lines).toEqual(expect.arrayContaining(["first", "second", "third"]));
    expect(result.lines.indexOf("first")).toBeLessThan(result.lines.indexOf("third"));
    const status = await runtime.containerStatus(id);
    expect(status).toMatchObject({ running: false, exitCode: 3 });
    expect(status?.startedAt).toBeTruthy();
  });

  it("stops a container past its time limit and says it timed out", async () => {
    const id = await create(contract, { command: ["sleep", "60"] });
    const started = Date.now();
    const result = await run(contract, id, 500);
    expect(result.timedOut).toBe(true);
    expect(result.exitCode).not.toBe(0);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(await contract.subject.runtime.containerStatus(id)).toMatchObject({ running: false });
  });

  it("stops and removes repeatably; a removed container has no status, no writes, no changes, no listing", async () => {
    const { runtime } = contract.subject;
    const id = await create(contract, { command: ["sleep", "60"] });
    await runtime.startContainer(id);
    expect(await runtime.containerStatus(id)).toMatchObject({ running: true, exitCode: null });
    await runtime.stopContainer(id, { timeoutSeconds: 0 });
    expect(await runtime.containerStatus(id)).toMatchObject({ running: false });
    await runtime.stopContainer(id, { timeoutSeconds: 0 });
    await remove(contract, id);
    expect(await runtime.containerStatus(id)).toBeNull();
    await runtime.removeContainer(id);
    await runtime.stopContainer(id);
    expect(await runtime.writtenBytes(id)).toBe(0);
    expect(await runtime.containerChanges(id)).toEqual([]);
    expect((await runtime.listManagedContainers()).map((container) => container.id)).not.toContain(id);
  });
}

function commandCases(contract: Contract): void {
  it("runs commands in a running container, with and without a TTY", async () => {
    const { runtime } = contract.subject;
    const id = await create(contract, { command: ["sleep", "60"] });
    await runtime.startContainer(id);
    const script = 'echo "$GREETING in $(pwd)"; echo err >&2; exit 4';
    const plain = await runtime.exec(id, ["sh", "-c", script], { env: { GREETING: "hello" }, workingDir: "/tmp" });
    expect(plain.exitCode).toBe(4);
    expect(plain.output).toContain("hello in /tmp");
    expect(plain.output).toContain("err");
    const tty = await runtime.execTty(id, ["sh"], { columns: 100, rows: 30 });
    let screen = "";
    tty.stream.on("data", (chunk: Buffer) => (screen += chunk.toString()));
    tty.stream.write("stty size; echo tty-$((6*7))\n");
    await expect.poll(() => screen, { timeout: 10_000 }).toContain("tty-42");
    expect(screen).toContain("30 100");
    await tty.resize(120, 40);
    tty.stream.write("stty size; exit 0\n");
    await expect.poll(() => screen, { timeout: 10_000 }).toContain("40 120");
    await expect.poll(() => tty.exitCode(), { timeout: 10_000 }).toBe(0);
    await remove(contract, id);
  });

  it("attaches to a TTY container before it starts, resizes it, waits for its exit and starts it again", async () => {
    const { runtime } = contract.subject;
    const id = await create(contract, { command: ["sh"], tty: true });
    const tty = await runtime.attachTty(id);
    let screen = "";
    tty.stream.on("data", (chunk: Buffer) => (screen += chunk.toString()));
    tty.stream.on("error", () => undefined);
    await runtime.startContainer(id);
    await runtime.resizeTty(id, { columns: 90, rows: 20 });
    const exited = runtime.waitForExit(id);
    tty.stream.write("stty size; exit 5\n");
    await expect.poll(() => screen, { timeout: 10_000 }).toContain("20 90");
    expect(await exited).toBe(5);
    tty.detach();
    expect(await runtime.containerStatus(id)).toMatchObject({ running: false, exitCode: 5 });
    // a session that exited is resumed: the same container starts again
    await runtime.startContainer(id);
    expect(await runtime.containerStatus(id)).toMatchObject({ running: true });
    await runtime.stopContainer(id, { timeoutSeconds: 0 });
    await remove(contract, id);
  });
}

function imageCases(contract: Contract): void {
  it("measures and commits what a container wrote; the image is found by its labels and removed repeatably", async () => {
    const { runtime } = contract.subject;
    const id = await create(contract, {
      command: ["sh", "-c", "mkdir /tmp/contract && head -c 1048576 /dev/zero > /tmp/contract/blob"],
    });
    expect((await run(contract, id)).exitCode).toBe(0);
    expect(await runtime.writtenBytes(id)).toBeGreaterThanOrEqual(1048576);
    expect(await runtime.containerChanges(id)).toEqual(
      expect.arrayContaining([
        { path: "/tmp/contract", kind: "added" },
        { path: "/tmp/contract/blob", kind: "added" },
      ]),
    );
    const repository = `invariant-contract/${contract.project}`;
    const labels = { [TEST_LABEL]: contract.mark, [LABEL.run]: "t-contract-1" };
    const image = await runtime.commitContainer(id, { repository, tag: "c1", labels });
    contract.images.add(image);
    await remove(contract, id);
    const info = await runtime.inspectImage(image);
    expect(info).toMatchObject({ id: image, labels: expect.objectContaining(labels) as unknown });
    expect(info?.sizeBytes).toBeGreaterThan(0);
    expect(info?.architecture).toMatch(/\w/);
    expect((await runtime.inspectImage(`${repository}:c1`))?.id).toBe(image);
    const listed = await runtime.listImages({ [TEST_LABEL]: contract.mark, [LABEL.run]: "t-contract-1" });
    expect(listed.map((found) => found.id)).toEqual([image]);
    expect(listed[0]?.repoTags).toContain(`${repository}:c1`);
    expect(Date.now() - (listed[0]?.createdAt.getTime() ?? 0)).toBeLessThan(10 * 60_000);
    expect(await runtime.listImages({ [TEST_LABEL]: contract.mark, [LABEL.run]: "another" })).toEqual([]);
    // a container of the committed image sees the files its source wrote
    const reader = await create(contract, { image, command: ["sh", "-c", "wc -c < /tmp/contract/blob"] });
    expect((await run(contract, reader)).lines).toEqual(["1048576"]);
    await remove(contract, reader);
    await runtime.removeImage(image);
    expect(await runtime.inspectImage(image)).toBeNull();
    expect(await runtime.listImages({ [TEST_LABEL]: contract.mark, [LABEL.run]: "t-contract-1" })).toEqual([]);
    await runtime.removeImage(image);
  });

  it("builds an image offline, saves it and loads it back after it was removed", async () => {
    const { runtime } = contract.subject;
    const image = await runtime.buildImage({
      context: buildContext({ Dockerfile: "FROM scratch\nCOPY marker /marker\n", marker: contract.mark }),
      dockerfile: "Dockerfile",
      buildArgs: {},
      target: null,
      labels: { [TEST_LABEL]: contract.mark },
      timeoutMs: 60_000,
      onOutput: () => undefined,
    });
    contract.images.add(image);
    expect((await runtime.inspectImage(image))?.labels).toMatchObject({ [TEST_LABEL]: contract.mark });
    const chunks: Buffer[] = [];
    for await (const chunk of await runtime.saveImage(image)) chunks.push(Buffer.from(chunk as Buffer));
    await runtime.removeImage(image);
    expect(await runtime.inspectImage(image)).toBeNull();
    expect(await runtime.loadImage(Readable.from([Buffer.concat(chunks)]))).toContain(image);
    expect((await runtime.inspectImage(image))?.labels).toMatchObject({ [TEST_LABEL]: contract.mark });
  });
}

/** A build context: these files in a tar stream (packed by the host's tar, owned by root). */
function buildContext(files: Record<string, string>): NodeJS.ReadableStream {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-contract-context-"));
  try {
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), content);
    const tar = spawnSync("tar", ["-c", "--owner=0", "--group=0", "-C", dir, ...Object.keys(files)]);
    if (tar.status !== 0) throw new Error(`tar failed: ${tar.stderr.toString()}`);
    return Readable.from([tar.stdout]);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

function networkCases(contract: Contract): void {
  it("moves a stopped container to network none and back to its project's network", async () => {
    const { runtime } = contract.subject;
    const interfaces = ["ls", "/sys/class/net"];
    const isolated = await create(contract, { command: interfaces, network: "internet" });
    await runtime.switchNetwork(isolated, { projectId: contract.project, network: "none" });
    expect((await run(contract, isolated)).lines).toEqual(["lo"]);
    const connected = await create(contract, { command: interfaces, network: "none" });
    await runtime.switchNetwork(connected, { projectId: contract.project, network: "internet" });
    const lines = (await run(contract, connected)).lines;
    expect(lines).toContain("lo");
    expect(lines.length).toBeGreaterThan(1);
    await remove(contract, isolated);
    await remove(contract, connected);
    // nothing of the project holds its network any more
    expect(await runtime.removeProjectNetworks(contract.project)).toEqual([]);
  });
}

/** Registers the contract's cases for the runtime `setup` makes (called once, before the first case). */
export function describeContainerRuntime(name: string, setup: () => ContractSubject | Promise<ContractSubject>): void {
  describe(`ContainerRuntime contract: ${name}`, () => {
    const mark = randomBytes(4).toString("hex");
    let subject: ContractSubject | null = null;
    const contract: Contract = {
      get subject() {
        if (!subject) throw new Error("The contract's setup has not run.");
        return subject;
      },
      mark,
      project: `p-contract-${mark}`,
      containers: new Set(),
      images: new Set(),
    };
    beforeAll(async () => {
      subject = await setup();
    });
    afterAll(() => (subject ? cleanUp(contract) : undefined));
    lifecycleCases(contract);
    commandCases(contract);
    imageCases(contract);
    networkCases(contract);
  });
}
