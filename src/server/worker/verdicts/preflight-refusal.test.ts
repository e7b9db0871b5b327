import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { parseVerdict } from "./parse-verdict";
import { preflightRefusal } from "./preflight-refusal";

const fixture = (name: string) => fs.readFileSync(path.join(import.meta.dirname, "fixtures", name), "utf8");

/** Parses the output, then asks whether the preflight must refuse it. */
function refusal(output: string, exitCode: number | null, junitXml?: string[]): string | null {
  const verdict = parseVerdict({ output, exitCode, junitXml });
  return preflightRefusal({ verdict, exitCode, output });
}

describe("preflightRefusal", () => {
  it("refuses exit 127 and quotes the shell's not-found line", () => {
    const text = refusal(fixture("exit-127-sh.txt"), 127); // real: sh -c 'jest --ci' in invariant-base:bookworm
    expect(text).toContain('"sh: 1: jest: not found"');
    expect(text).toMatch(/not found \(exit code 127\)/);
    expect(text).toMatch(/Install the program/);
    expect(refusal("sh: 1: foo: not found\n", 127)).toContain('"sh: 1: foo: not found"');
    expect(refusal("bash: line 1: foo: command not found\n", 127)).toContain('"bash: line 1: foo: command not found"');
    expect(refusal("\u001b[31msh: 1: foo: not found\u001b[0m\nmore\n", 127)).toContain('"sh: 1: foo: not found"');
    expect(refusal("", 127)).toContain("the shell could not find the program");
  });

  it("refuses exit 126 and says how to make the file executable", () => {
    const text = refusal(fixture("exit-126-sh.txt"), 126);
    expect(text).toContain('"sh: 1: ./run-tests.sh: Permission denied"');
    expect(text).toMatch(/could not be executed \(exit code 126\)/);
    expect(text).toMatch(/chmod \+x/);
    expect(refusal("", 126)).toContain("found but not executable");
  });

  it("refuses a kill by signal when no test result was printed, naming the signal", () => {
    const oom = refusal(fixture("exit-137-oom.txt"), 137); // real: a 64 MB container running out of memory
    expect(oom).toMatch(/SIGKILL \(exit code 137\)/);
    expect(oom).toMatch(/out of memory/);
    expect(refusal("", 143)).toMatch(/SIGTERM \(exit code 143\)/);
    expect(refusal("Segmentation fault\n", 139)).toMatch(/crashed with SIGSEGV \(exit code 139\)/);
    expect(refusal("", 134)).toMatch(/SIGABRT/);
    expect(refusal("", 130)).toMatch(/interrupted by SIGINT/);
    expect(refusal("", 255)).toMatch(/exited with code 255/);
    // a run killed before its summary, and a zero-test summary, are both "no parsed tests"
    expect(refusal("      Tests  no tests\n", 137)).toMatch(/SIGKILL/);
  });

  it("refuses a missing exit code when no test result was printed", () => {
    expect(refusal("", null)).toMatch(/without an exit code/);
    expect(refusal(fixture("exit-code-only.txt"), null)).toMatch(/killed or its container stopped/);
  });

  it("does not refuse a kill or a missing exit code after tests were parsed", () => {
    expect(refusal(fixture("node20-tap.txt"), 137)).toBeNull();
    expect(refusal(fixture("jest.txt"), null)).toBeNull();
  });

  it("refuses a runner that crashed before any test ran (summary with 0 tests, non-zero exit)", () => {
    const vitest = refusal(fixture("vitest-import-error.txt"), 1);
    expect(vitest).toMatch(/exited with code 1 before any test ran: its Vitest summary reports 0 tests/);
    expect(refusal(fixture("jest-syntax-error.txt"), 1)).toMatch(/its Jest summary reports 0 tests/);
    expect(refusal("=========== no tests ran in 0.01s ===========\n", 5)).toMatch(/pytest summary reports 0 tests/);
    expect(refusal("crashed", 1, ['<testsuites tests="0"></testsuites>'])).toMatch(/its JUnit report reports 0 tests/);
    expect(refusal("Ran 0 tests in 0.000s\n\nNO TESTS RAN\n", 5)).toMatch(/its unittest summary reports 0 tests/);
    expect(refusal("./a.go:3:1: syntax error\nFAIL\texample.com/a [build failed]\nFAIL\n", 1)).toMatch(
      /its go test output reports 0 tests/,
    );
    expect(
      refusal("running 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 3 filtered out\n", 1),
    ).toMatch(/its cargo test summary reports 0 tests/);
  });

  it("does not refuse a failing baseline, a passing run, or exit 0 without counts", () => {
    expect(refusal(fixture("exit-code-only.txt"), 1)).toBeNull(); // a failing baseline is normal
    expect(refusal(fixture("exit-code-only.txt"), 2)).toBeNull();
    expect(refusal("all good\n", 0)).toBeNull();
    expect(refusal("", 0)).toBeNull();
    expect(refusal(fixture("node20-tap.txt"), 1)).toBeNull();
    expect(refusal(fixture("mocha.txt"), 2)).toBeNull(); // Mocha exits with the number of failures
    expect(refusal(fixture("pytest.txt"), 1)).toBeNull();
    expect(refusal("      Tests  no tests\n", 0)).toBeNull(); // zero tests with exit 0: not ok, but not a crash
  });
});

describe("preflight refusals point at the dependency step", () => {
  it("names the dependency step when the test program is not found", () => {
    expect(refusal("sh: 1: vitest: not found\n", 127)).toMatch(/dependency step on the project page/);
  });

  it("quotes the missing module when a runner reports 0 tests", () => {
    const vitest = refusal(
      "Error: Cannot find package 'dayjs' imported from /workspace/src/dates.js\n Test Files  1 failed (1)\n      Tests  no tests\n",
      1,
    );
    expect(vitest).toContain(`"Error: Cannot find package 'dayjs' imported from /workspace/src/dates.js"`);
    expect(vitest).toMatch(/dependency step/);
  });

  it("refuses when npx had to fetch the test runner from the registry (a real run in network mode none)", () => {
    // `npx vitest run` in the default base image (npm 10) with vitest in package.json but no node_modules
    const output = fixture("npx-offline.txt");
    expect(refusal(output, 1)).toMatch(
      /^The test command tried to download vitest from the npm registry \("npm error request to https:\/\/registry\.npmjs\.org\/vitest failed, reason: getaddrinfo EAI_AGAIN registry\.npmjs\.org"\): it is not installed in this environment, and tests run without network\. .*dependency step on the project page/,
    );
    // evaluation containers run npm offline (no minute of retries): the same refusal from ENOTCACHED
    expect(refusal(fixture("npx-offline-cache.txt"), 1)).toMatch(
      /^The test command tried to download vitest from the npm registry \("npm error request to https:\/\/registry\.npmjs\.org\/vitest failed: cache mode is 'only-if-cached'/,
    );
    // a suite that ran and failed is a verdict, whatever it printed about the registry before
    expect(refusal(`${output}\n# tests 3\n# pass 1\n# fail 2\n`, 1)).toBeNull();
  });
});
