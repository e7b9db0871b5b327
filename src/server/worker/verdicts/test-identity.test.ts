// Test identity: rows named the same in every run (node-tap's `# time=`), and the unittest, go test and
// cargo test parsers, on output captured from real runs (fixtures/README.md).
import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { buildTestMatrix } from "../../../shared/test-matrix";
import { parseVerdict } from "./parse-verdict";
import type { TestCaseResult, Verdict } from "./verdict";

const FIXTURES = path.join(import.meta.dirname, "fixtures");
const parse = (name: string): Verdict =>
  parseVerdict({ output: fs.readFileSync(path.join(FIXTURES, name), "utf8"), exitCode: 1 });
const statuses = (verdict: Verdict) => verdict.tests.map((test) => [test.name, test.status]);
const row = (verdict: Verdict, name: string): TestCaseResult | undefined =>
  verdict.tests.find((test) => test.name === name);

describe("node-tap: the same names in two runs", () => {
  const first = parse("node-tap.txt");
  const second = parse("node-tap-second-run.txt");

  it("names every row without the run's `# time=` and counts the leaf test points, as tap's summary does", () => {
    expect(statuses(first)).toEqual([
      ["test/math.test.js > arithmetic > adds > should be equal", "passed"],
      ["test/math.test.js > arithmetic > subtracts > should be equal", "passed"],
      ["test/math.test.js > arithmetic > multiplies > should be equal", "failed"],
      ["test/math.test.js > top-level pass > fine", "passed"],
      ['test/math.test.js > escapes <tag> & "quotes" > should be equal', "passed"],
      ["test/math.test.js > async pass > waited", "passed"],
      ["test/math.test.js > throws error > boom second line", "failed"],
      ["test/math.test.js > not ready yet", "skipped"],
    ]);
    expect(first.tests.every((test) => !test.name.includes("time="))).toBe(true);
    expect(row(first, "test/math.test.js > not ready yet")?.message).toBe("needs a database");
    expect(row(first, "test/math.test.js > arithmetic > multiplies > should be equal")?.message).toContain("-7\n+6");
  });

  it("gives the two runs one matrix row per test, none missing", () => {
    expect(statuses(second)).toEqual(statuses(first));
    const matrix = buildTestMatrix({
      trials: [
        { id: "run-1", choice: 1, repeat: 1 },
        { id: "run-2", choice: 1, repeat: 2 },
      ],
      results: new Map([
        ["run-1", first.tests],
        ["run-2", second.tests],
      ]),
    });
    expect(matrix.tests).toHaveLength(8);
    expect(matrix.tests.flatMap((test) => test.cells).includes("missing")).toBe(false);
    expect(matrix.tests.filter((test) => test.flipsIn.length > 0)).toEqual([]);
  });

  it("keys rows stored with a time in their name (before names were normalized) to the same matrix row", () => {
    const matrix = buildTestMatrix({
      trials: [
        { id: "old", choice: 1, repeat: 1 },
        { id: "new", choice: 1, repeat: 2 },
      ],
      results: new Map([
        ["old", [{ name: "test/index.js # time=37.64ms", status: "passed" as const }]],
        ["new", [{ name: "test/index.js", status: "passed" as const }]],
      ]),
    });
    expect(matrix.tests).toEqual([{ name: "test/index.js", cells: ["passed", "passed"], flipsIn: [], passed: 2 }]);
  });
});

describe("a 10,000-test suite in two trials", () => {
  it("keeps every row of each, so the matrix matches them test for test (one failure in one trial is no reason to drop others)", () => {
    const tap = (failing: number | null) =>
      [
        "TAP version 13",
        ...Array.from(
          { length: 10_000 },
          (_, i) => `${i === failing ? "not ok" : "ok"} ${i + 1} - case ${i} # time=0.${i}ms`,
        ),
        "1..10000",
      ].join("\n");
    const clean = parseVerdict({ output: tap(null), exitCode: 0 });
    const broken = parseVerdict({ output: tap(9_999), exitCode: 1 });
    expect([clean.tests.length, broken.tests.length, clean.testsTruncated, broken.testsTruncated]).toEqual([
      10_000,
      10_000,
      false,
      false,
    ]);
    const matrix = buildTestMatrix({
      trials: [
        { id: "clean", choice: 1, repeat: 1 },
        { id: "broken", choice: 1, repeat: 2 },
      ],
      results: new Map([
        ["clean", clean.tests],
        ["broken", broken.tests],
      ]),
    });
    expect(matrix.tests).toHaveLength(10_000);
    expect(matrix.tests.filter((test) => test.cells.includes("missing"))).toEqual([]);
    expect(matrix.tests.filter((test) => test.flipsIn.length > 0).map((test) => test.name)).toEqual(["case 9999"]);
  });
});

describe("Python unittest", () => {
  it("reads -v rows named module.Class.method, with the traceback's exception as the message", () => {
    const verdict = parse("unittest-verbose.txt");
    expect(statuses(verdict)).toEqual([
      ["test_math.TestArithmetic.test_adds", "passed"],
      ["test_math.TestArithmetic.test_multiplies", "failed"],
      ["test_math.TestArithmetic.test_subtracts", "passed"],
      ["test_math.TestMisc.test_escapes", "passed"], // its docstring line stood between name and "... ok"
      ["test_math.TestMisc.test_not_ready_yet", "skipped"],
      ["test_math.TestMisc.test_slow_pass", "passed"],
      ["test_math.TestMisc.test_throws_error", "failed"],
      ["test_math.TestMisc.test_top_level_pass", "passed"],
    ]);
    expect(row(verdict, "test_math.TestArithmetic.test_multiplies")?.message).toBe("AssertionError: 6 != 7");
    expect(row(verdict, "test_math.TestMisc.test_throws_error")?.message).toBe("ValueError: boom\nsecond line");
    expect(row(verdict, "test_math.TestMisc.test_not_ready_yet")?.message).toBe("needs a database");
  });

  it("lists only the failures without -v, and names them as -v does", () => {
    expect(statuses(parse("unittest.txt"))).toEqual([
      ["test_math.TestMisc.test_throws_error", "failed"],
      ["test_math.TestArithmetic.test_multiplies", "failed"],
    ]);
  });

  it("reads subtests, a test's own output before its status, expected failures and unexpected successes", () => {
    const verdict = parse("unittest-subtests.txt");
    expect(statuses(verdict)).toEqual([
      ["test_sub.TestSub.test_even (i=1)", "failed"],
      ["test_sub.TestSub.test_prints", "passed"],
      ["test_sub.TestSub.test_xfail", "skipped"],
      ["test_sub.TestSub.test_xpass", "failed"],
    ]);
    expect(verdict).toMatchObject({ passed: 1, failed: 2, skipped: 1, total: 4 });
  });

  it("names Python 3.10's `test_x (module.Class)` lines as 3.11's, and reads OK and NO TESTS RAN", () => {
    const old = parseVerdict({
      output: "test_adds (test_math.TestArithmetic) ... ok\n\n" + "-".repeat(70) + "\nRan 1 test in 0.000s\n\nOK\n",
      exitCode: 0,
    });
    expect(old).toMatchObject({ source: "unittest", passed: 1, total: 1, ok: true });
    expect(old.tests[0]?.name).toBe("test_math.TestArithmetic.test_adds");
    expect(parseVerdict({ output: "Ran 3 tests in 0.1s\n\nOK (skipped=1)\n", exitCode: 0 })).toMatchObject({
      passed: 2,
      skipped: 1,
      ok: true,
    });
    expect(parseVerdict({ output: "\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n", exitCode: 5 })).toMatchObject({
      source: "unittest",
      total: 0,
      ok: false,
    });
  });
});

describe("go test", () => {
  it("reads -v and -json alike: package > Test/subtest rows, leaf tests only, log lines as messages", () => {
    const verbose = parse("go-test-v.txt");
    const json = parse("go-test-json.txt");
    expect(statuses(verbose)).toEqual([
      ["example.com/sample/mathx > TestArithmetic/adds", "passed"],
      ["example.com/sample/mathx > TestArithmetic/subtracts", "passed"],
      ["example.com/sample/mathx > TestArithmetic/multiplies", "failed"],
      ["example.com/sample/mathx > TestTopLevelPass", "passed"],
      ['example.com/sample/mathx > TestEscapes/<tag>_&_"quotes"', "passed"],
      ["example.com/sample/mathx > TestAsyncPass", "passed"],
      ["example.com/sample/mathx > TestThrowsError", "failed"],
      ["example.com/sample/mathx > TestNotReadyYet", "skipped"],
    ]);
    expect(statuses(json)).toEqual(statuses(verbose));
    for (const verdict of [verbose, json]) {
      expect(row(verdict, "example.com/sample/mathx > TestArithmetic/multiplies")?.message).toBe(
        "math_test.go:22: 2 * 3 = 6, want 7",
      );
      expect(row(verdict, "example.com/sample/mathx > TestNotReadyYet")?.message).toBe(
        "math_test.go:42: needs a database",
      );
    }
    expect(row(verbose, "example.com/sample/mathx > TestAsyncPass")?.durationMs).toBe(20);
  });

  it("keeps a parent that failed on its own, and says a package that did not build ran no test", () => {
    const own = parseVerdict({
      output:
        "=== RUN   TestParent\n    a_test.go:5: setup broke\n=== RUN   TestParent/child\n--- FAIL: TestParent (0.00s)\n    --- PASS: TestParent/child (0.00s)\nFAIL\nFAIL\texample.com/a\t0.01s\n",
      exitCode: 1,
    });
    expect(statuses(own)).toEqual([
      ["example.com/a > TestParent", "failed"],
      ["example.com/a > TestParent/child", "passed"],
    ]);
    expect(row(own, "example.com/a > TestParent")?.message).toBe("a_test.go:5: setup broke");
    const broken = parseVerdict({
      output:
        "# example.com/a\n./a.go:3:1: syntax error: non-declaration statement outside function body\nFAIL\texample.com/a [build failed]\nFAIL\n",
      exitCode: 2,
    });
    expect(broken).toMatchObject({ source: "go-test", total: 0, ok: false });
  });
});

describe("cargo test", () => {
  it("reads rows named after the binary's source, never its build hash, and the panic as the message", () => {
    const verdict = parse("cargo-test-no-fail-fast.txt");
    expect(verdict.tests.map((test) => test.name)).toEqual([
      "src/lib.rs > tests::arithmetic::adds",
      "src/lib.rs > tests::arithmetic::multiplies",
      "src/lib.rs > tests::arithmetic::subtracts",
      "src/lib.rs > tests::not_ready_yet",
      "src/lib.rs > tests::throws_error",
      "src/lib.rs > tests::top_level_pass",
      "src/lib.rs > tests::slow_pass",
      "tests/escapes.rs > escapes_tag_and_quotes",
      "src/lib.rs - add", // a doc-test, without its "(line 3)"
    ]);
    expect(row(verdict, "src/lib.rs > tests::arithmetic::multiplies")?.message).toBe(
      "assertion `left == right` failed\n  left: 6\n right: 7",
    );
    expect(row(verdict, "src/lib.rs > tests::throws_error")?.message).toBe("boom\nsecond line");
    expect(row(verdict, "src/lib.rs > tests::not_ready_yet")).toMatchObject({
      status: "skipped",
      message: "needs a database",
    });
  });

  it("adds up the result line of every binary, and is ok only when all of them passed", () => {
    const passing = [
      "     Running unittests src/lib.rs (target/debug/deps/sample-e6daf73c296d6df0)",
      "running 1 test",
      "test tests::a ... ok",
      "test result: ok. 1 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s",
      "     Running target/debug/deps/api-77041ba3ea6bd0c4",
      "running 2 tests",
      "test b ... ok",
      "test c ... ignored",
      "test result: ok. 1 passed; 0 failed; 1 ignored; 0 measured; 0 filtered out; finished in 0.00s",
    ].join("\n");
    const verdict = parseVerdict({ output: passing, exitCode: 0 });
    expect(verdict).toMatchObject({ source: "cargo-test", passed: 2, failed: 0, skipped: 1, ok: true });
    expect(verdict.tests.map((test) => test.name)).toEqual(["src/lib.rs > tests::a", "api > b", "api > c"]);
  });
});

describe("the new formats on hostile output", () => {
  it("get through long lines without catastrophic backtracking, and leave other runners' output alone", () => {
    const long = (prefix: string, unit: string) => prefix + unit.repeat(Math.ceil((2 * 1024 * 1024) / unit.length));
    const outputs = [
      long("test_a (m.C) (", "x ... "),
      long("--- FAIL: ", "T (0.0s "),
      long("test ", "a ... ok, "),
      long("ok  \t", "pkg "),
      long('{"Action":"pass",', '"Test":"x",'),
      long("name ", "   # time=1ms"),
      long("name", " (seed=1)"),
    ];
    for (const output of outputs) expect(parseVerdict({ output, exitCode: 1 }).source).toBeTypeOf("string");
    for (const name of ["jest.txt", "pytest.txt", "mocha.txt", "vitest-no-color.txt", "node20-tap.txt"])
      expect(["unittest", "go-test", "cargo-test"]).not.toContain(parse(name).source);
  });
});
