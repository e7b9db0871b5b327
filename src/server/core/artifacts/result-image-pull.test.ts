import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startLocalRegistry, type LocalRegistry } from "../../../../test/support/local-registry";
import { tempDir } from "../../../../test/support/temp";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { registryName, type ImageRegistry } from "../runtime/registry-transfer";
import { pullPushedImage } from "./result-image-pull";

/**
 * The dashboard's side of a result image a worker pushed to the registry, on the real engine and a real
 * local registry: only a digest in its own registry's results repository is pulled, and only the image
 * asked for is kept (a worker naming another image's digest leaves nothing behind).
 */
const runtime = createDockerRuntime({ hostCaBundle: null });
let local: LocalRegistry;
let registry: ImageRegistry;
const made: string[] = [];

/** A tiny image of its own (one file), pushed to the registry's results repository, then removed here. */
async function pushedElsewhere(name: string): Promise<{ id: string; reference: string }> {
  const dir = tempDir(`pull-${name}`);
  fs.writeFileSync(path.join(dir, "tool.txt"), `${name} ${randomBytes(8).toString("hex")}\n`);
  const imported = spawnSync(
    "sh",
    ["-c", `tar -C ${dir} -c tool.txt | docker import -c 'LABEL invariant.test=pull' -`],
    {
      encoding: "utf8",
    },
  );
  const id = imported.stdout.trim();
  expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
  made.push(id);
  const reference = await runtime.pushImage({ imageId: id, ...registryName(registry, "results", id), auth: null });
  expect(spawnSync("docker", ["rmi", "-f", id]).status).toBe(0);
  return { id, reference };
}
const onHost = (id: string) => spawnSync("docker", ["image", "inspect", id]).status === 0;
const request = (imageId: string) => ({ imageId, worker: null, host: "far-host", trialId: "trial-1" });
const messages: string[] = [];
const deps = () => ({ runtime, registry, log: (message: string) => messages.push(message) });

beforeAll(async () => {
  local = await startLocalRegistry();
  registry = { address: local.address, auth: null };
}, 60_000);
afterAll(async () => {
  for (const id of made) spawnSync("docker", ["rmi", "-f", id], { stdio: "ignore" });
  await local?.stop();
});

describe("pulling a result image a worker pushed to the registry", () => {
  it("keeps exactly the image asked for, pulled by digest, and says what moved", async () => {
    const wanted = await pushedElsewhere("wanted");
    expect(onHost(wanted.id)).toBe(false);
    local.reset();
    await pullPushedImage(deps(), { request: request(wanted.id), reference: wanted.reference, worker: "far" });
    expect(onHost(wanted.id)).toBe(true);
    expect(local.moved().down).toBeGreaterThan(0);
    expect(messages.at(-1)).toMatch(
      /pulled image [0-9a-f]{12} from 127\.0\.0\.1:\d+ in \d+ ms \(1 layers pulled, 0 already here/,
    );
  });

  it("refuses another image's digest and removes what it pulled", async () => {
    const asked = await pushedElsewhere("asked");
    const other = await pushedElsewhere("other");
    await expect(
      pullPushedImage(deps(), { request: request(asked.id), reference: other.reference, worker: "far" }),
    ).rejects.toThrow(/the digest worker "far" named is image [0-9a-f]{12}, not [0-9a-f]{12}; nothing of it was kept/);
    expect(onHost(other.id)).toBe(false);
    expect(onHost(asked.id)).toBe(false);
  });

  it("refuses a digest outside this dashboard's registry (or its results repository) before pulling anything", async () => {
    const asked = await pushedElsewhere("outside");
    const digest = asked.reference.split("@")[1] ?? "";
    local.reset();
    for (const reference of [`127.0.0.1:1/invariant/results@${digest}`, `${registry.address}/elsewhere@${digest}`])
      await expect(pullPushedImage(deps(), { request: request(asked.id), reference, worker: "far" })).rejects.toThrow(
        /which is not a digest in this dashboard's registry/,
      );
    expect(local.moved()).toEqual({ up: 0, down: 0 });
    // no registry set on this dashboard: nothing is pulled at all
    await expect(
      pullPushedImage(
        { ...deps(), registry: null },
        { request: request(asked.id), reference: asked.reference, worker: "far" },
      ),
    ).rejects.toThrow(/\(none set\)/);
    expect(onHost(asked.id)).toBe(false);
  });
});
