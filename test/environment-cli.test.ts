import { spawnSync } from "node:child_process";
import { afterAll, describe, expect, it } from "vitest";
import { cliResultSchema } from "../src/cli/cli-schemas";
import { tempDir } from "./support/temp";
import { BIN, cleanEnv, launch, ROOT, type Launched } from "./support/launch";

let app: Launched | null = null;
const tags: string[] = [];
afterAll(async () => {
  await app?.stop();
  for (const tag of tags) spawnSync("docker", ["rmi", "-f", tag], { stdio: "ignore" });
});

function cli(dataDir: string, args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args, "--data-dir", dataDir], {
    cwd: ROOT,
    env: cleanEnv(),
    encoding: "utf8",
    timeout: 180_000,
  });
}

describe("invariant-web environment (CLI)", () => {
  it("explains that the dashboard must be running", () => {
    const result = cli(tempDir("cli"), ["environment", "list", "--project", "x"]);
    expect(result.status).toBe(1);
    expect(result.stderr).toContain("is not running for");
  });

  it("prepares an environment, then a new version with a command, streaming the build log", async () => {
    const dataDir = tempDir("cli");
    app = await launch({ dataDir });
    const projectDir = tempDir("cli-project");
    const added = await fetch(`${app.base}/api/trpc/projects.add`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${app.token}` },
      body: JSON.stringify({ hostPath: projectDir, name: "cli-demo" }),
    });
    expect(added.status).toBe(200);

    const unknown = cli(dataDir, ["environment", "prepare", "--project", "nope"]);
    expect(unknown.status).toBe(3); // refused: no such project
    expect(unknown.stderr).toContain('No project "nope". Known projects: cli-demo');

    const first = cli(dataDir, ["environment", "prepare", "--project", "cli-demo"]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("[1/3] installing the Codex CLI");
    expect(first.stderr).toContain("version ready and active");

    const second = cli(dataDir, [
      "environment",
      "prepare",
      "--project",
      projectDir,
      "--command",
      "echo hello-from-command > /usr/local/bin/greeting",
    ]);
    expect(second.status, second.stderr).toBe(0);
    expect(second.stderr).toContain("preparing version 2 of cli-demo");

    const failing = cli(dataDir, ["environment", "prepare", "--project", "cli-demo", "--command", "exit 7"]);
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain("exited with code 7");

    const list = cli(dataDir, ["environment", "list", "--project", "cli-demo", "--json"]);
    const overview = cliResultSchema("environment list").parse(JSON.parse(list.stdout)).data;
    expect(overview.versions.map((v) => [v.version, v.status, v.active])).toEqual([
      [3, "failed", false],
      [2, "ready", true],
      [1, "ready", false],
    ]);
    tags.push(...overview.versions.map((v) => v.imageTag));
  });
});
