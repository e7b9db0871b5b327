import { execFileSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import Docker from "dockerode";
import { afterAll, describe, expect, it } from "vitest";
import { ensureProjectNetwork, projectNetworkName } from "./project-network";

/**
 * Two processes creating one project's bridge at once (the web process for a session, a worker for a
 * trial): Docker lets both `createNetwork` calls succeed, and the name is then ambiguous to every
 * container create ("network … is ambiguous (2 matches found on name)"), which ended trials `error`.
 */
const docker = new Docker();
const projectId = `net-${randomBytes(4).toString("hex")}`;
const name = projectNetworkName(projectId);

function networksNamed(): { id: string; created: string }[] {
  const ids = execFileSync("docker", ["network", "ls", "-q", "--no-trunc", "--filter", `name=${name}`], {
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
  return ids
    .map(
      (id) =>
        JSON.parse(execFileSync("docker", ["network", "inspect", id], { encoding: "utf8" })) as [
          { Id: string; Name: string; Created: string },
        ],
    )
    .map(([info]) => info)
    .filter((info) => info.Name === name)
    .map((info) => ({ id: info.Id, created: info.Created }));
}

afterAll(() => {
  for (const { id } of networksNamed()) execFileSync("docker", ["network", "rm", id]);
});

describe("a project's bridge", () => {
  it("is created once for concurrent callers, and a duplicate another process made is removed, keeping the oldest", async () => {
    const names = await Promise.all(Array.from({ length: 4 }, () => ensureProjectNetwork({ docker, projectId })));
    expect(new Set(names)).toEqual(new Set([name]));
    expect(networksNamed()).toHaveLength(1);
    const [first] = networksNamed();

    // another process's creation that raced ours: Docker keeps both under one name
    await docker.createNetwork({ Name: name, Driver: "bridge", CheckDuplicate: false });
    expect(networksNamed()).toHaveLength(2);
    await expect(docker.getNetwork(name).inspect()).rejects.toThrow(/ambiguous/);
    expect(await ensureProjectNetwork({ docker, projectId })).toBe(name);
    expect(networksNamed().map((network) => network.id)).toEqual([first?.id]);
  });
});
