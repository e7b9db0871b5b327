import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { BASE_IMAGE } from "../../../../test/support/environment-harness";
import { tempDir } from "../../../../test/support/temp";
import { createDockerRuntime } from "../../core/runtime/docker-runtime";
import { runEvaluation } from "./evaluation";

/**
 * The JUnit report is written by the test command, which runs whatever the agent left in the
 * workspace: reading it back on the host follows no link on its path and stops at a size cap. Real
 * evaluation containers on the base image; the command plays the hostile report writer.
 */
const runtime = createDockerRuntime();

function evaluate(options: { tree: string; testCommand: string; junitPath: string }) {
  return runEvaluation({
    runtime,
    image: BASE_IMAGE,
    tree: options.tree,
    extraMounts: [],
    testCommand: options.testCommand,
    junitPath: options.junitPath,
    network: "none",
    limits: { cpus: 1, memoryBytes: 256 * 1024 ** 2, swapBytes: 0, pids: 64 },
    timeoutMs: 60_000,
    labels: { project: "p-junit-reader", role: "evaluation", worker: { id: "w", host: "h", pid: process.pid } },
    onOutput: () => undefined,
  });
}

const PASSING = `<testsuite name="host">${Array.from({ length: 5 }, (_, i) => `<testcase name="host ${i}"/>`).join("")}</testsuite>`;

describe("reading the JUnit report an evaluation wrote", () => {
  it("does not follow a directory on the JUnit path that the command made a symlink to the host", async () => {
    // a report on the host, outside the workspace: inside the container the link points at nothing
    const outside = tempDir("junit-outside");
    fs.writeFileSync(path.join(outside, "junit.xml"), PASSING);
    const tree = tempDir("junit-tree");
    const result = await evaluate({
      tree,
      junitPath: "reports/junit.xml",
      testCommand: `ln -s ${outside} reports && echo "1 passed, 2 failed" && exit 1`,
    });
    expect(fs.lstatSync(path.join(tree, "reports")).isSymbolicLink()).toBe(true);
    expect(result.verdict).toMatchObject({ source: "summary-line", passed: 1, failed: 2, total: 3 });
  });

  it("does not follow a report that is a symlink to a host file", async () => {
    const outside = tempDir("junit-outside");
    fs.writeFileSync(path.join(outside, "junit.xml"), PASSING);
    const tree = tempDir("junit-tree");
    fs.mkdirSync(path.join(tree, "reports"));
    const result = await evaluate({
      tree,
      junitPath: "reports",
      testCommand: `ln -s ${outside}/junit.xml reports/a.xml && echo "1 passed, 2 failed" && exit 1`,
    });
    expect(result.verdict).toMatchObject({ source: "summary-line", passed: 1, total: 3 });
  });

  it("stops at its size cap instead of reading a 3 GiB report into memory", async () => {
    const tree = tempDir("junit-tree");
    const result = await evaluate({
      tree,
      junitPath: "junit.xml",
      testCommand: `truncate -s 3G junit.xml && echo "2 passed, 1 failed" && exit 1`,
    });
    expect(fs.statSync(path.join(tree, "junit.xml")).size).toBe(3 * 1024 ** 3);
    expect(result.verdict).toMatchObject({ source: "summary-line", passed: 2, failed: 1, total: 3 });
    fs.rmSync(path.join(tree, "junit.xml"));
  });
});
