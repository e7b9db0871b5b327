import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { cliResultSchema, type CliCommandName, type CliData } from "../src/cli/cli-schemas";
import { BIN, cleanEnv, launch, ROOT, type Launched } from "./support/launch";
import { removeImages } from "./support/study-harness";
import { tempDir } from "./support/temp";

/**
 * Issue 25's acceptance, from the CLI alone against the built product: a project nobody edited for
 * invariant-web (fixtures/node22-project: `.nvmrc` 22, `engines.node` >=22.12, no lockfile, a `prepare` script
 * that needs its sources, a vendored native module) gets an environment, its detected dependency step (which
 * installs Node.js 22 from the npm registry and builds the module), and a study whose no-op configuration
 * equals the baseline while a breaking one fails tests — with the runtime recorded in every trial's manifest.
 */
let app: Launched | null = null;
let dataDir = "";
let projectId = "";
afterAll(async () => {
  await app?.stop();
  if (projectId) for (const kind of ["env", "trial"]) removeImages(`invariant-${kind}/${projectId.toLowerCase()}`);
});

function run(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args, "--data-dir", dataDir], { cwd: ROOT, env: cleanEnv() });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
    child.once("close", (code) => resolve({ code, stdout, stderr }));
  });
}

async function json<C extends CliCommandName>(command: C, args: string[]): Promise<CliData<C>> {
  const result = await run([...args, "--json"]);
  expect(result.code, `${command}: ${result.stderr}${result.stdout.slice(0, 2000)}`).toBe(0);
  return (cliResultSchema(command).parse(JSON.parse(result.stdout)) as { data: CliData<C> }).data;
}

describe("a real-looking Node.js 22 project on the first try, from the CLI", () => {
  it("environment → detected dependencies (Node.js 22, prepare held back, native module) → an honest study", async () => {
    dataDir = tempDir("first-try-data");
    app = await launch({ dataDir });
    const projectDir = path.join(tempDir("first-try"), "shift-planner");
    fs.cpSync(path.join(ROOT, "fixtures", "node22-project"), projectDir, { recursive: true });

    const { project } = await json("project add", ["project", "add", projectDir]);
    projectId = project.id;
    const environment = await json("environment prepare", [
      "environment",
      "prepare",
      "--project",
      project.id,
      "--timeout",
      "600",
    ]);
    expect(environment.version).toMatchObject({ status: "ready", version: 1 });

    const shown = await json("dependencies show", ["dependencies", "show", "--last"]);
    expect(shown.dependencies.step).toEqual({
      kind: "npm",
      command: "npm install",
      outputs: ["node_modules"],
      manifests: ["package.json", ".nvmrc", "vendor/tiny-addon-1.0.0.tgz"],
    });
    expect(shown.dependencies.edited).toBe(false);

    const installed = await json("dependencies install", ["dependencies", "install", "--last", "--timeout", "600"]);
    expect(installed.version).toMatchObject({ status: "ready", version: 2 });
    const after = await json("dependencies show", ["dependencies", "show", "--last"]);
    const node = after.dependencies.installed?.runtimeReport?.find((report) => report.runtime === "node");
    expect(node).toMatchObject({
      requested: "22 >=22.12",
      source: ".nvmrc and package.json engines.node",
      outcome: "installed",
    });
    expect(node?.version).toMatch(/^22\.(1[2-9]|[2-9]\d)\.\d+$/);
    const human = await run(["dependencies", "show", "--last"]);
    expect(human.stdout).toMatch(/Node\.js 22\.\d+\.\d+ — from \.nvmrc and package\.json engines\.node/);
    // the project itself was not touched: the step held back its prepare script and wrote nothing there
    expect(fs.existsSync(path.join(projectDir, "dist"))).toBe(false);
    expect(fs.existsSync(path.join(projectDir, "node_modules"))).toBe(false);

    const studyFile = path.join(tempDir("first-try-study"), "study.json");
    fs.writeFileSync(
      studyFile,
      JSON.stringify({
        project: project.id,
        title: "Shift lengths",
        taskPrompt: "Leave the shift arithmetic as it is.",
        testCommand: "npm test",
        testFiles: [{ source: "project", path: "test/shifts.test.js" }],
        configurations: [
          { harness: "command", command: "true", repeats: 1 },
          { harness: "command", command: "sed -i 's/value \\/ 60_000/value \\/ 1000/' src/shifts.js", repeats: 1 },
        ],
      }),
    );
    await json("study create", ["study", "create", "--file", studyFile]);
    const { study } = await json("study wait", ["study", "wait", "--last", "--timeout", "600"]);
    expect(study.refusal).toBeNull();
    expect(study.state).toBe("done");
    // all five pass on the snapshot: Node.js 22.12+, the native module and the project's own tests
    expect(study.baseline).toMatchObject({ passed: 5, total: 5 });
    const verdicts = study.trials.map((trial) => [trial.choice, `${trial.verdict?.passed}/${trial.verdict?.total}`]);
    expect(verdicts).toEqual([
      [1, "5/5"],
      [2, "3/5"],
    ]);
    // every trial's manifest records the runtime it ran on (the JSON report carries the manifests)
    const { report } = await json("study export", ["study", "export", "--last", "--format", "json"]);
    const manifests = (
      report as { trials: { manifest: { environment: { runtimes: { runtime: string; version: string }[] } } | null }[] }
    ).trials.map((trial) => trial.manifest?.environment.runtimes.find((r) => r.runtime === "node")?.version);
    expect(manifests).toEqual([node?.version, node?.version]);
  }, 1_500_000);
});
