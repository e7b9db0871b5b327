import { randomBytes } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { BASE_IMAGE } from "../../../../test/support/environment-harness";
import { DiskBudgetExceededError } from "./disk-budget";
import { createDockerRuntime } from "./docker-runtime";

/**
 * The runtime's limits hold while this process's event loop is blocked (a worker busy with a flood, a
 * hash, a big JSON): the watchdog thread stops the container at its time limit or past its disk budget,
 * so what the container would print after that never comes. And a container that wrote past its budget
 * just before it exited is refused at its commit.
 */
const runtime = createDockerRuntime();
const created: string[] = [];
const limits = { cpus: 0.5, memoryBytes: 256 * 1024 * 1024, swapBytes: 0, pids: 100 };
const PROJECT = `p-test-${randomBytes(4).toString("hex")}`;
const MIB = 1024 * 1024;

afterAll(async () => {
  for (const id of created) await runtime.removeContainer(id);
});

async function create(script: string, diskBudgetBytes: number | null = null): Promise<string> {
  const id = await runtime.createContainer({
    image: BASE_IMAGE,
    command: ["sh", "-c", script],
    labels: { project: PROJECT, role: "probe" },
    limits,
    network: "none",
    diskBudgetBytes,
  });
  created.push(id);
  return id;
}

/** Blocks this thread's event loop without yielding. */
function blockEventLoop(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Runs the container to its exit, blocking this loop for `blockMs` from one second after the start. */
async function runBlocked(id: string, options: { timeoutMs?: number; blockMs: number }) {
  let output = "";
  const ran = runtime.runToExit(id, (chunk) => (output += chunk), { timeoutMs: options.timeoutMs ?? 120_000 });
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  blockEventLoop(options.blockMs);
  return { ...(await ran), output: () => output };
}

describe("the limits watchdog", () => {
  it("stops a container at its time limit while this loop is blocked across it", async () => {
    const id = await create("echo started; sleep 12; echo late");
    const result = await runBlocked(id, { timeoutMs: 4_000, blockMs: 16_000 });
    expect(result).toMatchObject({ timedOut: true, overDisk: null });
    expect(result.output()).toBe("started\n");
  });

  it("stops a container past its disk budget while this loop is blocked", async () => {
    const id = await create("sleep 1; head -c 100M /dev/zero > /tmp/fill; echo wrote; sleep 12; echo late", 32 * MIB);
    const result = await runBlocked(id, { blockMs: 16_000 });
    expect(result.timedOut).toBe(false);
    expect(result.overDisk?.budgetBytes).toBe(32 * MIB);
    expect(result.overDisk?.usedBytes).toBeGreaterThanOrEqual(100 * MIB);
    expect(result.output()).toBe("wrote\n");
  });

  it("refuses to commit a container that wrote past its budget just before it exited", async () => {
    const id = await create("head -c 100M /dev/zero > /tmp/fill", 32 * MIB);
    await runtime.runToExit(id, () => undefined);
    const commit = runtime.commitContainer(id, { repository: "invariant-test/over-budget", tag: "never", labels: {} });
    await expect(commit).rejects.toBeInstanceOf(DiskBudgetExceededError);
    await expect(commit).rejects.toThrow(/^Not kept as an image: Stopped: it wrote 100\.0 MiB to disk/);
    expect(await runtime.inspectImage("invariant-test/over-budget:never")).toBeNull();
  });
});
