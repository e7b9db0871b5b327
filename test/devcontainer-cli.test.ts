import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliResultSchema } from "../src/cli/cli-schemas";
import { tempDir } from "./support/temp";
import { BIN, cleanEnv, launch, ROOT, type Launched } from "./support/launch";

/** `invariant-web environment prepare --devcontainer` through the running dashboard (its own private Redis). */
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

async function addProject(base: string, token: string, dir: string, name: string): Promise<void> {
  const added = await fetch(`${base}/api/trpc/projects.add`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
    body: JSON.stringify({ hostPath: dir, name }),
  });
  expect(added.status).toBe(200);
}

describe("invariant-web environment prepare --devcontainer", () => {
  it("builds from the devcontainer.json, streaming its log; refuses features by name and --command with it", async () => {
    const dataDir = tempDir("devcontainer-cli");
    app = await launch({ dataDir });
    const good = tempDir("devcontainer-cli-project");
    fs.writeFileSync(
      path.join(good, ".devcontainer.json"),
      `{ "image": "invariant-base:bookworm", "containerEnv": { "TOOL": "ready", }, // JSONC
         "postCreateCommand": "echo \\"tool $TOOL\\" > /usr/local/share/tool" }`,
    );
    await addProject(app.base, app.token, good, "dc-cli");

    const built = cli(dataDir, ["environment", "prepare", "--project", "dc-cli", "--devcontainer"]);
    expect(built.status, built.stderr).toBe(0);
    expect(built.stdout).toContain("[devcontainer] containerEnv: TOOL");
    expect(built.stdout).toContain("[devcontainer] postCreateCommand");
    expect(built.stderr).toContain("version ready and active");

    const list = cli(dataDir, ["environment", "list", "--project", "dc-cli", "--json"]);
    const overview = cliResultSchema("environment list").parse(JSON.parse(list.stdout)).data;
    expect(overview.versions.map((v) => [v.version, v.origin, v.status, v.active])).toEqual([
      [1, "devcontainer", "ready", true],
    ]);
    tags.push(...overview.versions.map((v) => v.imageTag));
    const seen = spawnSync(
      "docker",
      ["run", "--rm", overview.versions[0]!.imageTag, "sh", "-c", 'echo "$TOOL"; cat /usr/local/share/tool'],
      {
        encoding: "utf8",
      },
    );
    expect(seen.stdout).toBe("ready\ntool ready\n");

    const both = cli(dataDir, ["environment", "prepare", "--project", "dc-cli", "--devcontainer", "--command", "true"]);
    expect(both.status).toBe(2);
    expect(both.stderr).toContain("--devcontainer builds from the project's devcontainer.json");

    const refused = tempDir("devcontainer-cli-refused");
    fs.mkdirSync(path.join(refused, ".devcontainer"));
    fs.writeFileSync(
      path.join(refused, ".devcontainer", "devcontainer.json"),
      JSON.stringify({ image: "invariant-base:bookworm", features: { "ghcr.io/devcontainers/features/go:1": {} } }),
    );
    await addProject(app.base, app.token, refused, "dc-cli-refused");
    const features = cli(dataDir, ["environment", "prepare", "--project", "dc-cli-refused", "--devcontainer"]);
    expect(features.status).toBe(3);
    expect(features.stderr).toContain('"features" (ghcr.io/devcontainers/features/go:1) is not supported');
  }, 300_000);
});
