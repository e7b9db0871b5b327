import { describe, expect, it } from "vitest";
import { parseJunit } from "./junit";
import { outputLines } from "./output-text";
import { parseTap } from "./tap";
import { verdictFromFormat, MAX_TEST_ROWS, type TestCaseResult } from "./verdict";
import { decodeEntities } from "./xml-scanner";

const junit = (xml: string) => parseJunit({ documents: [xml] });

describe("JUnit scanner", () => {
  it("decodes entities once, numeric and hex references, and leaves unknown ones alone", () => {
    expect(
      decodeEntities("&lt;a&gt; &amp; &quot;b&quot; &apos;c&apos; &#10;&#x41;&#X42; &amp;lt; &nbsp; &#xD800; & x"),
    ).toBe("<a> & \"b\" 'c' \nAB &lt; &nbsp; &#xD800; & x");
  });

  it("reads CDATA, <error>, comments, single quotes, nested suites and a skipped case that also failed", () => {
    const result = junit(`<?xml version="1.0"?>
<!DOCTYPE testsuites>
<testsuites>
  <!-- <testcase name="commented out"/> -->
  <testsuite name='outer'>
    <testsuite name="inner">
      <testcase classname="pkg.Widget" name="renders" time="1.5"><failure><![CDATA[expected <b> & got </i>]]></failure></testcase>
      <testcase classname='pkg.Widget' name='explodes' time='0,25'><error message="Boom &#10;line 2" type="Error">stack</error></testcase>
      <testcase classname="pkg.Widget" name="both"><skipped/><failure message="really failed"/></testcase>
      <testcase classname="pkg.Widget" name="skips"><skipped message="later"/></testcase>
      <testcase name="no class" time="abc"><system-out>a < b</system-out></testcase>
    </testsuite>
  </testsuite>
</testsuites>`);
    expect(result?.caseCount).toBe(5);
    const rows = result?.result.tests ?? [];
    expect(rows).toEqual<TestCaseResult[]>([
      { name: "pkg.Widget > renders", status: "failed", durationMs: 1500, message: "expected <b> & got </i>" },
      { name: "pkg.Widget > explodes", status: "failed", durationMs: 250, message: "Boom \nline 2" },
      { name: "pkg.Widget > both", status: "failed", durationMs: null, message: "really failed" },
      { name: "pkg.Widget > skips", status: "skipped", durationMs: null, message: "later" },
      { name: "no class", status: "passed", durationMs: null, message: null },
    ]);
    expect(result?.result.counts).toEqual({ passed: 1, failed: 3, skipped: 1 });
  });

  it('names Node\'s cases (classname="test") after their describe suites', () => {
    const rows = junit(
      '<testsuites><testsuite name="a"><testsuite name="b"><testcase name="c" classname="test"/></testsuite></testsuite><testcase name="d" classname="test"/></testsuites>',
    )?.result.tests;
    expect(rows?.map((row) => row.name)).toEqual(["a > b > c", "d"]);
  });

  it("falls back to the outer suites' count attributes when there is no test case", () => {
    const result = junit(
      '<testsuites><testsuite name="x" tests="10" failures="2" errors="1" skipped="3"/><testsuite name="y" tests="4" disabled="1"/></testsuites>',
    );
    expect(result?.caseCount).toBe(0);
    expect(result?.result.counts).toEqual({ passed: 7, failed: 3, skipped: 4 });
    expect(junit("<html><body>no junit</body></html>")).toBeNull();
    expect(junit("")).toBeNull();
  });

  it("survives truncated documents", () => {
    const result = junit('<testsuite><testcase name="a"/><testcase name="b"><failure message="x');
    expect(result?.result.tests.map((row) => [row.name, row.status])).toEqual([
      ["a", "passed"],
      ["b", "failed"],
    ]);
  });
});

describe("TAP details", () => {
  const tap = (text: string) => parseTap({ lines: outputLines({ output: text }) });

  it("unescapes Node's names and finds the directive after the first unescaped #; a time directive is a duration, not a name", () => {
    const result = tap(
      "TAP version 13\nok 1 - a \\# b # SKIP why not\nok 2 - c\\\\ # todo\nnot ok 3 multi\\nline # TIME=3ms\nok 4 - e # SKIP slow # time=0.5s\n1..4\n",
    );
    expect(result?.tests).toEqual<TestCaseResult[]>([
      { name: "a # b", status: "skipped", durationMs: null, message: "why not" },
      { name: "c\\", status: "skipped", durationMs: null, message: null },
      { name: "multi\nline", status: "failed", durationMs: 3, message: null },
      { name: "e", status: "skipped", durationMs: 500, message: "slow" },
    ]);
  });

  it("reads YAML errors as block, single-quoted and double-quoted scalars", () => {
    const result = tap(
      [
        "not ok 1 - a",
        "  ---",
        "  error: |-",
        "    first",
        "",
        "    third",
        "  code: 'X'",
        "  ...",
        "not ok 2 - b",
        "  ---",
        "  error: 'it''s'",
        "  ...",
        "not ok 3 - c",
        "  ---",
        '  error: "tab\\there"',
        "  ...",
        "# pass 0",
        "# fail 3",
      ].join("\n"),
    );
    expect(result?.tests.map((row) => row.message)).toEqual(["first\n\nthird", "it's", "tab\there"]);
    expect(result?.counts).toEqual({ passed: 0, failed: 3, skipped: 0 });
  });

  it("counts Node's cancelled tests as failed and TODO as skipped", () => {
    expect(tap("ok 1 - a\n# tests 6\n# pass 1\n# fail 1\n# cancelled 2\n# skipped 1\n# todo 1\n")?.counts).toEqual({
      passed: 1,
      failed: 3,
      skipped: 2,
    });
  });
});

describe("row cap", () => {
  it("keeps every failed row first, then the others in order, and says it truncated", () => {
    const rows: TestCaseResult[] = Array.from({ length: MAX_TEST_ROWS + 100 }, (_, i) => ({
      name: `t${i}`,
      status: i % 50 === 49 ? "failed" : "passed",
      durationMs: null,
      message: null,
    }));
    const verdict = verdictFromFormat({ source: "tap", counts: { passed: 0, failed: 0, skipped: 0 }, tests: rows });
    expect(verdict.tests).toHaveLength(MAX_TEST_ROWS);
    expect(verdict.testsTruncated).toBe(true);
    expect(verdict.tests.filter((row) => row.status === "failed")).toHaveLength(
      rows.filter((row) => row.status === "failed").length,
    );
    expect(verdict.tests.at(-1)?.name).toBe(`t${MAX_TEST_ROWS + 99}`);
  });
});
