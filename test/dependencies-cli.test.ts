import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliFailureSchema, cliResultSchema } from "../src/cli/cli-schemas";
import { tempDir } from "./support/temp";
import { BIN, cleanEnv, launch, ROOT, type Launched } from "./support/launch";

/**
 * `invariant-web dependencies show|set|install` (issue 25, CLI parity) against the built product: the
 * launcher's dashboard, its worker and Docker. The step is detected from package.json, edited and reset
 * from the command line, and installed as a new environment version whose log the command follows.
 */
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
    timeout: 240_000,
  });
}

const DETECTED = { kind: "npm", command: "npm install", outputs: ["node_modules"], manifests: ["package.json"] };
const GREETING =
  "echo installing-greeting && mkdir -p node_modules/greeting && echo hi > node_modules/greeting/index.js";

describe("invariant-web dependencies (CLI)", () => {
  it("shows, edits, resets and installs a project's dependency step", async () => {
    const dataDir = tempDir("deps-cli");
    app = await launch({ dataDir });
    const projectDir = tempDir("deps-cli-project");
    fs.writeFileSync(path.join(projectDir, "package.json"), '{ "name": "deps-cli", "version": "1.0.0" }\n');
    const added = await fetch(`${app.base}/api/trpc/projects.add`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${app.token}` },
      body: JSON.stringify({ hostPath: projectDir, name: "deps-cli" }),
    });
    expect(added.status).toBe(200);
    const show = () => {
      const result = cli(dataDir, ["dependencies", "show", "--project", "deps-cli", "--json"]);
      expect(result.status, result.stderr).toBe(0);
      return cliResultSchema("dependencies show").parse(JSON.parse(result.stdout)).data.dependencies;
    };

    // detected from package.json; nothing installed yet
    expect(show()).toMatchObject({ step: DETECTED, detected: DETECTED, edited: false, installed: null });
    const human = cli(dataDir, ["dependencies", "show", "--last"]);
    expect(human.status, human.stderr).toBe(0);
    expect(human.stdout).toContain("deps-cli: dependency step (detected)");
    expect(human.stdout).toContain("command:   npm install");

    // a bad output folder, a bad kind, contradicting flags: usage errors that change nothing
    const badOutput = cli(dataDir, ["dependencies", "set", "--last", "--outputs", "src", "--json"]);
    expect(badOutput.status).toBe(2);
    expect(badOutput.stderr).toContain("src cannot hold installed dependencies");
    const failure = cliFailureSchema.parse(JSON.parse(badOutput.stdout));
    expect(failure.error).toMatchObject({ kind: "usage", field: "outputs" });
    const badKind = cli(dataDir, ["dependencies", "set", "--last", "--kind", "maven"]);
    expect(badKind.status).toBe(2);
    expect(badKind.stderr).toContain("--kind must be one of npm, pnpm, yarn, python, go, cargo, command");
    const both = cli(dataDir, ["dependencies", "set", "--last", "--detected", "--command", "true"]);
    expect(both.status).toBe(2);
    expect(show()).toMatchObject({ step: DETECTED, edited: false });

    // no environment yet: install is refused with what to do
    const early = cli(dataDir, ["dependencies", "install", "--project", "deps-cli"]);
    expect(early.status).toBe(3);
    expect(early.stderr).toContain("Prepare the environment first");

    // an edited step keeps the fields not given
    const set = cli(dataDir, ["dependencies", "set", "--last", "--kind", "command", "--command", GREETING, "--json"]);
    expect(set.status, set.stderr).toBe(0);
    const edited = { kind: "command", command: GREETING, outputs: ["node_modules"], manifests: ["package.json"] };
    expect(cliResultSchema("dependencies set").parse(JSON.parse(set.stdout)).data.dependencies).toMatchObject({
      step: edited,
      detected: DETECTED,
      edited: true,
    });

    const prepared = cli(dataDir, ["environment", "prepare", "--project", "deps-cli"]);
    expect(prepared.status, prepared.stderr).toBe(0);
    const install = cli(dataDir, ["dependencies", "install", "--project", "deps-cli"]);
    expect(install.status, install.stderr).toBe(0);
    expect(install.stderr).toContain("installing the dependencies of deps-cli as environment version 2");
    expect(install.stdout).toContain("installing-greeting"); // the step's own log, followed
    expect(install.stderr).toContain("version ready and active");
    expect(show()).toMatchObject({ installed: { version: 2, kind: "command", command: GREETING }, warning: null });

    // a failing step: exit 1 with the build's error, and the installed dependencies stay those of v2
    expect(cli(dataDir, ["dependencies", "set", "--last", "--command", "exit 9"]).status).toBe(0);
    const failing = cli(dataDir, ["dependencies", "install", "--last", "--json"]);
    expect(failing.status).toBe(1);
    expect(failing.stderr).toContain("failed:");
    const failed = cliResultSchema("dependencies install").parse(JSON.parse(failing.stdout)).data;
    expect(failed.version).toMatchObject({ version: 3, status: "failed", active: false });
    expect(failed.version.error).toContain("9");
    expect(failed.dependencies.installed).toMatchObject({ version: 2, command: GREETING });

    // back to the detected step
    const reset = cli(dataDir, ["dependencies", "set", "--last", "--detected", "--json"]);
    expect(reset.status, reset.stderr).toBe(0);
    const after = cliResultSchema("dependencies set").parse(JSON.parse(reset.stdout)).data.dependencies;
    expect(after).toMatchObject({ step: DETECTED, edited: false, installed: { version: 2 }, warning: null });

    // a manifest that moved on since the install (and declares a package, so there is something to install):
    // the staleness warning, with what to run
    fs.writeFileSync(
      path.join(projectDir, "package.json"),
      '{ "name": "deps-cli", "version": "1.0.1", "dependencies": { "left-pad": "^1.3.0" } }\n',
    );
    expect(show()).toMatchObject({ changes: [{ path: "package.json", change: "changed" }] });
    const stale = cli(dataDir, ["dependencies", "show", "--project", "deps-cli"]);
    expect(stale.stdout).toContain("package.json: changed since the install");
    expect(stale.stdout).toMatch(/warning: package\.json changed since the dependencies were installed/);
    expect(stale.stdout).toContain("invariant-web dependencies install --project deps-cli");

    const list = cli(dataDir, ["environment", "list", "--project", "deps-cli", "--json"]);
    tags.push(
      ...cliResultSchema("environment list")
        .parse(JSON.parse(list.stdout))
        .data.versions.map((v) => v.imageTag),
    );
  });
});
