import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { RuntimeRequest } from "../../../shared/dependency-schemas";
import { describeRuntime } from "../../../shared/runtime-labels";
import { CONTAINER_CA_PATH, hostCaEnv, resolveHostCaBundle } from "../runtime/host-ca";
import { dependencyScript } from "./dependency-step-plan";
import { parseRuntimeReport, readRuntimeReport, RUNTIME_REPORT } from "./runtime-script";

/**
 * The dependency step's runtime stage in a real container of the default base image (Node.js 24 with npm,
 * Debian's Python 3.11): a declared Node.js is fetched from the npm registry when the image's does not
 * match, Python and Go are reported as they are, and the report file says which is which.
 */
const IMAGE = "invariant-base:bookworm";
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

function runStep(options: { runtimes: RuntimeRequest[]; command?: string; network?: boolean }) {
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), "runtime-step-"));
  dirs.push(workspace);
  const bundle = resolveHostCaBundle({ setting: "auto" });
  const caArgs = bundle
    ? [
        "-v",
        `${bundle}:${CONTAINER_CA_PATH}:ro`,
        ...Object.entries(hostCaEnv()).flatMap(([key, value]) => ["-e", `${key}=${value}`]),
      ]
    : [];
  const script = dependencyScript({ kind: "command", outputs: [], runtimes: options.runtimes });
  const result = spawnSync(
    "docker",
    [
      "run",
      "--rm",
      ...(options.network === false ? ["--network", "none"] : caArgs),
      "-v",
      `${workspace}:/workspace`,
      "-w",
      "/workspace",
      "-e",
      `INVARIANT_DEPENDENCY_COMMAND=${options.command ?? "node --version"}`,
      IMAGE,
      "/bin/sh",
      "-c",
      script,
    ],
    { encoding: "utf8", timeout: 240_000 },
  );
  return { ...result, output: `${result.stdout}${result.stderr}`, workspace };
}

describe("the dependency step's runtimes", () => {
  it("installs the Node.js that .nvmrc and engines.node ask for when the image's does not satisfy them", async () => {
    const step = runStep({
      runtimes: [{ runtime: "node", range: "22 >=22.12", source: ".nvmrc and package.json engines.node" }],
      command: "node --version > node-version.txt && npm --version > npm-version.txt",
    });
    expect(step.status, step.output).toBe(0);
    expect(step.output).toMatch(/Node\.js 24\.\d+\.\d+ does not satisfy 22 >=22\.12 \(from \.nvmrc/);
    // the project's own command runs on the installed Node.js, and npm still works
    expect(fs.readFileSync(path.join(step.workspace, "node-version.txt"), "utf8")).toMatch(/^v22\.(1[2-9]|[2-9]\d)\./);
    expect(fs.readFileSync(path.join(step.workspace, "npm-version.txt"), "utf8")).toMatch(/^10\./);
    const [node] = await readRuntimeReport(step.workspace);
    expect(node).toMatchObject({ runtime: "node", requested: "22 >=22.12", outcome: "installed" });
    expect(describeRuntime(node!)).toMatch(/^Node\.js 22\.\d+\.\d+ — from \.nvmrc and package\.json engines\.node$/);
  }, 300_000);

  it("keeps the image's Node.js when it satisfies the range, and reports Python as Debian offers it", async () => {
    const step = runStep({
      runtimes: [
        { runtime: "node", range: ">=20", source: "package.json engines.node" },
        { runtime: "python", range: "3.12", source: ".python-version" },
      ],
      network: false,
    });
    expect(step.status, step.output).toBe(0);
    expect(step.output).toMatch(/Node\.js 24\.\d+\.\d+ satisfies >=20/);
    expect(step.output).toContain(
      ".python-version asks for Python 3.12, which is not available offline: Debian bookworm offers Python 3.11",
    );
    const report = await readRuntimeReport(step.workspace);
    expect(report.map((r) => [r.runtime, r.outcome])).toEqual([
      ["node", "satisfied"],
      ["python", "unavailable"],
    ]);
    expect(describeRuntime(report[1]!)).toMatch(
      /^Python 3\.11\.\d+ — \.python-version asks for 3\.12, which is not available offline$/,
    );
  }, 120_000);

  it("accepts a Python specifier the image meets, and reports undeclared runtimes as present", async () => {
    const step = runStep({
      runtimes: [{ runtime: "python", range: ">=3.9,<4", source: "pyproject.toml requires-python" }],
      network: false,
    });
    expect(step.status, step.output).toBe(0);
    const report = await readRuntimeReport(step.workspace);
    expect(report.find((r) => r.runtime === "python")?.outcome).toBe("satisfied");
    expect(report.find((r) => r.runtime === "node")).toMatchObject({
      outcome: "present",
      requested: null,
      source: null,
    });
  }, 120_000);

  it("fails with what to do when no release matching the range can be fetched", () => {
    // the registry answers: Node.js 21 never had a 21.99
    const step = runStep({ runtimes: [{ runtime: "node", range: "21.99", source: ".nvmrc" }] });
    expect(step.status).toBe(14);
    expect(step.stderr).toContain(
      "No Node.js release matching 21.99 (from .nvmrc) could be fetched from the npm registry",
    );
    expect(fs.existsSync(path.join(step.workspace, RUNTIME_REPORT))).toBe(false);
  }, 120_000);
});

describe("the runtime report file", () => {
  it("drops lines a hostile install script could have written: unknown runtimes, outcomes, overlong text", () => {
    const text = [
      "node\t22.23.5\t22\t.nvmrc\tinstalled",
      "node\t1.0.0\t-\t-\tpresent", // a second node line does not replace the first
      "ruby\t3.3\t-\t-\tpresent",
      `python\t${"9".repeat(100)}\t-\t-\tpresent`,
      "go\t1.19.8\t1.22\tgo.mod\tpwned",
    ].join("\n");
    expect(parseRuntimeReport(text)).toEqual([
      { runtime: "node", version: "22.23.5", requested: "22", source: ".nvmrc", outcome: "installed" },
    ]);
  });
});
