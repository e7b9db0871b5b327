import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { stripAnsi } from "./output-text";
import { parseVerdict } from "./parse-verdict";
import { MAX_TEST_ROWS, type TestCaseResult, type Verdict, type VerdictSource } from "./verdict";

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), "utf8");

/** Parses a fixture the way the worker would: XML files as JUnit documents, text files as output. */
function parseFixture(name: string, exitCode: number | null = 1): Verdict {
  return name.endsWith(".xml")
    ? parseVerdict({ output: "", exitCode, junitXml: [fixture(name)] })
    : parseVerdict({ output: fixture(name), exitCode });
}

const row = (verdict: Verdict, name: string): TestCaseResult | undefined =>
  verdict.tests.find((test) => test.name === name);

// every fixture: [source, passed, failed, skipped, rows]; the sample projects have 5 passing, 2 failing, 1 skipped tests
// (cargo's first binary has 7 of them: without --no-fail-fast cargo stops before the other two; see fixtures/README.md)
const EXPECTED: Record<string, [VerdictSource, number | null, number | null, number | null, number]> = {
  "node20-tap.txt": ["tap", 5, 2, 1, 8],
  "node18-tap.txt": ["tap", 5, 2, 1, 8],
  "node20-tap-subtests.txt": ["tap", 1, 2, 2, 5],
  "node20-spec.txt": ["node-test", 5, 2, 1, 8],
  "node20-spec-color.txt": ["node-test", 5, 2, 1, 8],
  "node18-spec.txt": ["node-test", 5, 2, 1, 8],
  "node20-spec-subtests.txt": ["node-test", 1, 2, 2, 4],
  "node20-junit.xml": ["junit", 5, 2, 1, 8],
  "node18-junit.xml": ["junit", 5, 2, 1, 8],
  "vitest.txt": ["vitest", 5, 2, 1, 8],
  "vitest-no-color.txt": ["vitest", 5, 2, 1, 8],
  "vitest-verbose.txt": ["vitest", 5, 2, 1, 8],
  "vitest-junit.xml": ["junit", 5, 2, 1, 8],
  "vitest-import-error.txt": ["vitest", 0, 0, 0, 0],
  "jest.txt": ["jest", 5, 2, 1, 8],
  "jest-color.txt": ["jest", 5, 2, 1, 8],
  "jest-syntax-error.txt": ["jest", 0, 0, 0, 0],
  "mocha.txt": ["mocha", 5, 2, 1, 8],
  "mocha-color.txt": ["mocha", 5, 2, 1, 8],
  "mocha-tap.txt": ["tap", 5, 2, 1, 8],
  "mocha-xunit.xml": ["junit", 5, 2, 1, 8],
  "pytest.txt": ["pytest", 5, 2, 1, 2],
  "pytest-color.txt": ["pytest", 5, 2, 1, 2],
  "pytest-ra.txt": ["pytest", 5, 2, 1, 8],
  "pytest-verbose.txt": ["pytest", 5, 2, 1, 8],
  "pytest-junit.xml": ["junit", 5, 2, 1, 8],
  "node-tap.txt": ["tap", 5, 2, 1, 8],
  "node-tap-second-run.txt": ["tap", 5, 2, 1, 8],
  "unittest.txt": ["unittest", 5, 2, 1, 2],
  "unittest-verbose.txt": ["unittest", 5, 2, 1, 8],
  "unittest-subtests.txt": ["unittest", 1, 2, 1, 4],
  "go-test-v.txt": ["go-test", 5, 2, 1, 8],
  "go-test-json.txt": ["go-test", 5, 2, 1, 8],
  "go-test.txt": ["exit-code", null, null, null, 0],
  "cargo-test.txt": ["cargo-test", 4, 2, 1, 7],
  "cargo-test-no-fail-fast.txt": ["cargo-test", 6, 2, 1, 9],
  "summary-line.txt": ["summary-line", 20, 3, 1, 0],
  "exit-code-only.txt": ["exit-code", null, null, null, 0],
  "exit-126-sh.txt": ["exit-code", null, null, null, 0],
  "exit-127-sh.txt": ["exit-code", null, null, null, 0],
  "npx-offline.txt": ["exit-code", null, null, null, 0],
  "npx-offline-cache.txt": ["exit-code", null, null, null, 0],
  "exit-137-oom.txt": ["exit-code", null, null, null, 0],
};

describe("parseVerdict on real runner output", () => {
  it("has an expectation for every fixture file", () => {
    const files = fs.readdirSync(FIXTURES).filter((name) => name !== "README.md");
    expect(files.sort()).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const [name, [source, passed, failed, skipped, rows]] of Object.entries(EXPECTED)) {
    it(`${name}: ${source} ${passed ?? "-"}/${failed ?? "-"}/${skipped ?? "-"}`, () => {
      const verdict = parseFixture(name);
      const total = passed === null ? null : passed + (failed ?? 0) + (skipped ?? 0);
      expect({
        source: verdict.source,
        passed: verdict.passed,
        failed: verdict.failed,
        skipped: verdict.skipped,
        total: verdict.total,
      }).toEqual({ source, passed, failed, skipped, total });
      expect(verdict.tests).toHaveLength(rows);
      expect(verdict.testsTruncated).toBe(false);
      expect(verdict.ok).toBe(false); // every sample has failures, or ran nothing, or exited 1
    });
  }

  it("reads Node 20 TAP rows: nested names, durations, YAML errors, SKIP reasons; the describe suite is not a row", () => {
    const verdict = parseFixture("node20-tap.txt");
    expect(row(verdict, "arithmetic > adds")).toEqual({
      name: "arithmetic > adds",
      status: "passed",
      durationMs: 0.88,
      message: null,
    });
    expect(row(verdict, "arithmetic > multiplies")).toEqual({
      name: "arithmetic > multiplies",
      status: "failed",
      durationMs: 1.479,
      message: "Expected values to be strictly equal:\n\n6 !== 7",
    });
    expect(row(verdict, "throws error")?.message).toBe("boom\nsecond line");
    expect(row(verdict, 'escapes <tag> & "quotes"')?.status).toBe("passed");
    expect(row(verdict, "not ready yet")).toEqual({
      name: "not ready yet",
      status: "skipped",
      durationMs: 0.168,
      message: "needs a database",
    });
    expect(row(verdict, "arithmetic")).toBeUndefined();
  });

  it("counts a TAP parent test with subtests like Node's summary does (a test, not a suite); TODO is skipped", () => {
    const verdict = parseFixture("node20-tap-subtests.txt");
    expect(verdict.tests.map((test) => [test.name, test.status])).toEqual([
      ["parent > child ok", "passed"],
      ["parent > child fails", "failed"],
      ["parent", "failed"],
      ["todo thing", "skipped"],
      ["todo passing", "skipped"],
    ]);
    expect(row(verdict, "parent")?.message).toBe("1 subtest failed");
    expect(row(verdict, "todo thing")?.message).toBe("later");
  });

  it("reads node:test spec rows and skips the failing-tests recap after the summary", () => {
    for (const name of ["node20-spec.txt", "node20-spec-color.txt", "node18-spec.txt"]) {
      const verdict = parseFixture(name);
      expect(verdict.tests.map((test) => test.name)).toEqual([
        "arithmetic > adds",
        "arithmetic > subtracts",
        "arithmetic > multiplies",
        "top-level pass",
        'escapes <tag> & "quotes"',
        "async pass",
        "throws error",
        "not ready yet",
      ]);
      expect(row(verdict, "throws error")?.message).toBe("Error: boom\nsecond line");
      expect(row(verdict, "not ready yet")?.message).toBe("needs a database");
    }
    expect(row(parseFixture("node20-spec.txt"), "async pass")?.durationMs).toBe(20.940698);
    expect(row(parseFixture("node20-spec.txt"), "arithmetic > multiplies")?.message).toBe(
      "AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:\n\n6 !== 7",
    );
  });

  it("reads JUnit: classname and suite names, seconds to ms, entities, failure/skipped messages", () => {
    const vitest = parseFixture("vitest-junit.xml");
    expect(row(vitest, "math.test.js > arithmetic > multiplies")).toEqual({
      name: "math.test.js > arithmetic > multiplies",
      status: "failed",
      durationMs: 6.789,
      message: "expected 6 to be 7 // Object.is equality",
    });
    expect(row(vitest, 'math.test.js > escapes <tag> & "quotes"')?.status).toBe("passed");
    expect(row(vitest, "math.test.js > throws error")?.message).toBe("boom\nsecond line");
    const pytest = parseFixture("pytest-junit.xml");
    expect(row(pytest, "test_math > test_throws_error")?.message).toBe("ValueError: boom\nsecond line"); // &#10;
    expect(row(pytest, "test_math > test_slow_pass")?.durationMs).toBe(21);
    expect(row(pytest, 'test_math > test_escapes[<tag> & "quotes"]')?.status).toBe("passed");
    expect(row(pytest, "test_math > test_not_ready_yet")).toMatchObject({
      status: "skipped",
      message: "needs a database",
    });
    // Node's reporter writes classname="test" and nests describe blocks as suites
    const node = parseFixture("node20-junit.xml");
    expect(row(node, "arithmetic > adds")?.durationMs).toBe(0.902);
    expect(row(node, "top-level pass")?.status).toBe("passed");
    // Node 18 and 20 escape quotes in names twice (&amp;quot;): decoded once, as XML says
    expect(row(node, "escapes <tag> & &quot;quotes&quot;")?.status).toBe("passed");
    // Mocha's xunit counts failures as errors="2" failures="0"; the cases' <failure> elements decide
    const mocha = parseFixture("mocha-xunit.xml");
    expect(row(mocha, "arithmetic > multiplies")?.message).toContain("6 !== 7");
    expect(row(mocha, 'escapes <tag> & "quotes"')?.status).toBe("passed"); // hex references &#x3C;
  });

  it("reads Vitest, Jest, Mocha and pytest rows", () => {
    expect(row(parseFixture("vitest.txt"), "async pass")).toEqual({
      name: "async pass",
      status: "passed",
      durationMs: 23,
      message: null,
    });
    expect(row(parseFixture("vitest-verbose.txt"), "math.test.js > throws error")).toEqual({
      name: "math.test.js > throws error",
      status: "failed",
      durationMs: 1,
      message: "boom\nsecond line",
    });
    expect(row(parseFixture("vitest-verbose.txt"), "math.test.js > not ready yet")?.status).toBe("skipped");
    expect(row(parseFixture("jest.txt"), "arithmetic > multiplies")).toEqual({
      name: "arithmetic > multiplies",
      status: "failed",
      durationMs: 2,
      message: "expect(received).toBe(expected) // Object.is equality\n\nExpected: 7\nReceived: 6",
    });
    expect(row(parseFixture("jest.txt"), "not ready yet")?.status).toBe("skipped");
    expect(row(parseFixture("mocha.txt"), "throws error")).toEqual({
      name: "throws error",
      status: "failed",
      durationMs: null,
      message: "Error: boom\nsecond line",
    });
    expect(row(parseFixture("mocha.txt"), "arithmetic > subtracts")?.status).toBe("passed");
    expect(row(parseFixture("mocha.txt"), "not ready yet")?.status).toBe("skipped");
    expect(row(parseFixture("mocha-tap.txt"), "not ready yet")).toMatchObject({ status: "skipped", message: null });
    expect(row(parseFixture("pytest-verbose.txt"), "test_math.py::test_not_ready_yet")).toEqual({
      name: "test_math.py::test_not_ready_yet",
      status: "skipped",
      durationMs: null,
      message: "needs a database",
    });
    expect(row(parseFixture("pytest-ra.txt"), "test_math.py::test_throws_error")?.message).toBe("ValueError: boom");
    expect(row(parseFixture("pytest.txt"), "test_math.py::TestArithmetic::test_multiplies")?.message).toBe(
      "assert (2 * 3) == 7",
    );
  });

  it("is ok only with no failures and at least one test; exit-code verdicts follow the exit code", () => {
    expect(parseVerdict({ output: "Tests:       23 passed, 23 total\n", exitCode: 0 }).ok).toBe(true);
    expect(parseVerdict({ output: "Tests:       23 passed, 23 total\n", exitCode: 1 }).ok).toBe(true); // the counts decide
    expect(parseVerdict({ output: "      Tests  no tests\n", exitCode: 0 }).ok).toBe(false);
    expect(parseVerdict({ output: fixture("exit-code-only.txt"), exitCode: 0 })).toEqual({
      source: "exit-code",
      passed: null,
      failed: null,
      skipped: null,
      total: null,
      ok: true,
      tests: [],
      testsTruncated: false,
    });
    expect(parseVerdict({ output: fixture("exit-code-only.txt"), exitCode: 2 }).ok).toBe(false);
    expect(parseVerdict({ output: "", exitCode: null }).ok).toBe(false);
  });

  it("never passes a command killed by a signal or stopped at its time limit, even if the tests it got through passed", () => {
    const partial = "TAP version 13\nok 1 - adds\nok 2 - subtracts\n";
    expect(parseVerdict({ output: partial, exitCode: 0 })).toMatchObject({ source: "tap", passed: 2, ok: true });
    expect(parseVerdict({ output: partial, exitCode: 137 })).toMatchObject({ source: "tap", passed: 2, ok: false });
    expect(parseVerdict({ output: partial, exitCode: null })).toMatchObject({ source: "tap", passed: 2, ok: false });
  });
});

describe("parseVerdict preference order", () => {
  it("prefers JUnit files over any summary in the output", () => {
    const verdict = parseVerdict({
      output: fixture("node20-tap.txt"),
      exitCode: 1,
      junitXml: [fixture("vitest-junit.xml")],
    });
    expect(verdict.source).toBe("junit");
    expect(verdict.tests[0]?.name).toBe("math.test.js > arithmetic > adds");
  });

  it("adds up several JUnit files", () => {
    const verdict = parseVerdict({
      output: "",
      exitCode: 1,
      junitXml: [fixture("vitest-junit.xml"), fixture("pytest-junit.xml"), "not xml at all"],
    });
    expect([verdict.source, verdict.passed, verdict.failed, verdict.skipped, verdict.total]).toEqual([
      "junit",
      10,
      4,
      2,
      16,
    ]);
  });

  it("falls back to the output when the JUnit files hold no test case, and to zero tests when the output has nothing either", () => {
    const empty = '<?xml version="1.0"?><testsuites name="vitest tests" tests="0"></testsuites>';
    expect(parseVerdict({ output: fixture("jest.txt"), exitCode: 1, junitXml: [empty] }).source).toBe("jest");
    expect(parseVerdict({ output: "crashed", exitCode: 1, junitXml: [empty] })).toMatchObject({
      source: "junit",
      total: 0,
      ok: false,
    });
    expect(parseVerdict({ output: "crashed", exitCode: 1, junitXml: ["garbage", ""] }).source).toBe("exit-code");
  });

  it("prefers TAP over a spec summary, a runner summary over a plain line", () => {
    expect(
      parseVerdict({ output: `${fixture("node20-spec.txt")}\n${fixture("node20-tap.txt")}`, exitCode: 1 }).source,
    ).toBe("tap");
    expect(
      parseVerdict({ output: `${fixture("node20-tap.txt")}\n${fixture("node20-spec.txt")}`, exitCode: 1 }).source,
    ).toBe("tap");
    expect(
      parseVerdict({ output: `${fixture("jest.txt")}\n${fixture("vitest-no-color.txt")}`, exitCode: 1 }).source,
    ).toBe("vitest");
    // pytest's and Jest's summaries would also pass as plain lines; the runner's format wins
    expect(parseVerdict({ output: `Results: 1 passed, 0 failed\n${fixture("pytest.txt")}`, exitCode: 1 }).source).toBe(
      "pytest",
    );
  });

  it("reads plain summary lines in any order and case, and ignores lines that only mention counts", () => {
    const parse = (output: string) => parseVerdict({ output, exitCode: 1 });
    expect(parse("3 FAILED, 20 passed\n")).toMatchObject({
      source: "summary-line",
      passed: 20,
      failed: 3,
      skipped: 0,
      total: 23,
    });
    expect(parse("tests: 1 skipped; 4 passed; 0 failed (took 3s)\n")).toMatchObject({
      passed: 4,
      failed: 0,
      skipped: 1,
      ok: true,
    });
    expect(parse("23 passed\n")).toMatchObject({ source: "summary-line", passed: 23, ok: true });
    expect(parse("we passed 3 failed builds to the next stage\n").source).toBe("exit-code");
    expect(parse("3 passed, 2 passed\n").source).toBe("exit-code");
  });
});

describe("parseVerdict when a runner prints several summaries", () => {
  it("uses the last Jest, Vitest, pytest, Mocha and plain summary", () => {
    const twice = (first: string, second: string) => parseVerdict({ output: `${first}\n${second}`, exitCode: 1 });
    expect(twice("Tests:       1 failed, 1 total", "Tests:       2 failed, 21 passed, 23 total")).toMatchObject({
      source: "jest",
      passed: 21,
      failed: 2,
    });
    expect(twice("      Tests  1 passed (1)", "      Tests  3 failed | 20 passed (23)")).toMatchObject({
      source: "vitest",
      passed: 20,
      failed: 3,
    });
    expect(twice("=== 1 passed in 0.01s ===", "=== 3 failed, 20 passed in 0.12s ===")).toMatchObject({
      source: "pytest",
      passed: 20,
      failed: 3,
    });
    expect(twice("  1 passing (2ms)\n  1 failing", "  20 passing (2ms)\n  3 failing")).toMatchObject({
      source: "mocha",
      passed: 20,
      failed: 3,
    });
    expect(twice("1 passed, 0 failed", "20 passed, 3 failed")).toMatchObject({
      source: "summary-line",
      passed: 20,
      failed: 3,
    });
  });

  it("takes the last TAP run with its own rows", () => {
    const first = "TAP version 13\nok 1 - a\n# tests 1\n# pass 1\n# fail 0\n";
    const verdict = parseVerdict({ output: `${first}${fixture("node20-tap.txt")}`, exitCode: 1 });
    expect(verdict).toMatchObject({ source: "tap", passed: 5, failed: 2, skipped: 1 });
    expect(verdict.tests.map((test) => test.name)).not.toContain("a");
    expect(verdict.tests).toHaveLength(8);
  });

  it("counts TAP rows when there is no summary at all", () => {
    const verdict = parseVerdict({
      output:
        "1..4\nok 1 - a\nnot ok 2 - b\n  ---\n  message: 'bad'\n  ...\nok 3 - c # SKIP slow\nnot ok 4 - d # TODO later\n",
      exitCode: 1,
    });
    expect(verdict).toMatchObject({ source: "tap", passed: 1, failed: 1, skipped: 2, total: 4 });
    expect(row(verdict, "b")?.message).toBe("bad");
    expect(row(verdict, "d")).toMatchObject({ status: "skipped", message: "later" });
  });
});

describe("parseVerdict on hostile output", () => {
  it("strips ANSI colour: coloured and plain output give the same verdict", () => {
    const strip = ({ tests, ...counts }: Verdict) => ({
      ...counts,
      names: tests.map((test) => [test.name, test.status]),
    });
    expect(strip(parseFixture("node20-spec-color.txt"))).toEqual(strip(parseFixture("node20-spec.txt")));
    expect(strip(parseFixture("vitest.txt"))).toEqual(strip(parseFixture("vitest-no-color.txt")));
    expect(strip(parseFixture("jest-color.txt"))).toEqual(strip(parseFixture("jest.txt")));
    expect(strip(parseFixture("mocha-color.txt"))).toEqual(strip(parseFixture("mocha.txt")));
    expect(strip(parseFixture("pytest-color.txt"))).toEqual(strip(parseFixture("pytest.txt")));
    expect(
      stripAnsi(
        "\u001b[1m\u001b[31mred\u001b[39m\u001b[22m \u001b]8;;https://x\u0007link\u001b]8;;\u0007 \u009b32mdone\u001b(B",
      ),
    ).toBe("red link done");
  });

  it("reads Windows line endings and carriage-return progress lines", () => {
    expect(parseVerdict({ output: fixture("jest.txt").replace(/\n/g, "\r\n"), exitCode: 1 })).toMatchObject({
      source: "jest",
      passed: 5,
      failed: 2,
      skipped: 1,
    });
    expect(parseVerdict({ output: "running 1/3\rrunning 2/3\r3 passed, 1 failed\n", exitCode: 1 })).toMatchObject({
      source: "summary-line",
      passed: 3,
      failed: 1,
    });
  });

  it("falls back to the exit code for empty, garbage and non-UTF-8 output", () => {
    const noise = Buffer.from(Array.from({ length: 64 * 1024 }, (_, i) => (i * 7919 + 13) % 256)).toString("utf8");
    for (const output of ["", "\n\n", noise, "\u0000\u0001\u0002", "<testsuite><testcase", "ok", "# pass"]) {
      expect(parseVerdict({ output, exitCode: 1 }).source).toBe("exit-code");
    }
    expect(parseVerdict({ output: noise, exitCode: 1, junitXml: [noise] }).source).toBe("exit-code");
  });

  it("parses a 5 MB TAP stream from its last 2 MB: counts from the summary, rows capped with failures kept", () => {
    const parts = ["TAP version 13\n"];
    let failures = 0;
    let n = 0;
    while (parts.reduce((size, part) => size + part.length, 0) < 5 * 1024 * 1024) {
      for (let k = 0; k < 1000; k++) {
        n++;
        const failing = n % 997 === 0;
        if (failing) failures++;
        parts.push(
          `# Subtest: case ${n}\n${failing ? "not ok" : "ok"} ${n} - case ${n}\n  ---\n  duration_ms: 0.25\n  ...\n`,
        );
      }
    }
    parts.push(
      `1..${n}\n# tests ${n}\n# suites 0\n# pass ${n - failures}\n# fail ${failures}\n# cancelled 0\n# skipped 0\n# todo 0\n`,
    );
    const verdict = parseVerdict({ output: parts.join(""), exitCode: 1 });
    expect(verdict).toMatchObject({
      source: "tap",
      passed: n - failures,
      failed: failures,
      skipped: 0,
      total: n,
      ok: false,
      testsTruncated: true,
    });
    expect(verdict.tests).toHaveLength(MAX_TEST_ROWS);
    const lastFailing = n - (n % 997);
    expect(row(verdict, `case ${lastFailing}`)).toEqual({
      name: `case ${lastFailing}`,
      status: "failed",
      durationMs: 0.25,
      message: null,
    });
  });

  it("gets through pathological lines without catastrophic backtracking", () => {
    const long = (prefix: string, unit: string) => prefix + unit.repeat(Math.ceil((2 * 1024 * 1024) / unit.length));
    const outputs = [
      long("✔ ", "(1ms) # "),
      long("✔ ", "a (1.2ms)"),
      long("  ✓ ", "x (1 ms)"),
      long("test_a.py::t ", "PASSED (x) "),
      long("", "1 passed, "),
      long("=== ", "1 passed in 1s "),
      long("ok 1 - ", "\\#"),
      long("\u001b[", "1;"),
      Array.from({ length: 200_000 }, (_, i) => `✔ t${i} (1ms) # x`).join("\n"),
    ];
    for (const output of outputs) expect(parseVerdict({ output, exitCode: 1 }).source).toBeTypeOf("string");
    const xml = `<testsuite>${'<testcase name="a&amp;b" time="0.001"><failure message="x"><![CDATA[<not a tag>]]></failure></testcase>'.repeat(50_000)}</testsuite>`;
    const verdict = parseVerdict({ output: "", exitCode: 1, junitXml: [xml] });
    expect(verdict).toMatchObject({ source: "junit", failed: 50_000, total: 50_000, testsTruncated: true });
    expect(verdict.tests[0]).toEqual({ name: "a&b", status: "failed", durationMs: 1, message: "x" });
  });
});
