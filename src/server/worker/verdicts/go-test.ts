/**
 * `go test -v` and `go test -json`. Verbose output: `=== RUN   TestName` (also `=== CONT`, `=== NAME`
 * for parallel tests), results `--- PASS: TestName (0.00s)`, `--- FAIL: …`, `--- SKIP: …` (subtests
 * indented, named `Parent/child`), the test's log lines under it, and one line per package:
 * `ok  	example.com/pkg	0.02s`, `FAIL	example.com/pkg	0.02s`, `FAIL	example.com/pkg [build failed]`.
 * JSON output: one event per line, `{"Action":"pass","Package":…,"Test":…,"Elapsed":0.02}` and
 * `output` events. Go prints no test count, so the counts are the rows.
 *
 * Rows are named `package > Test/subtest`. A parent test is not a row of its own (its subtests
 * are), unless it failed with no failing subtest (its own `t.Error`). Without `-v` or `-json` Go
 * lists only the failures, so such output is left to the exit code: use `go test -v ./...`.
 */
import { z } from "zod";
import { indentOf } from "./output-text";
import { clipMessage, countRows, roundMs, type FormatResult, type TestCaseResult, type TestStatus } from "./verdict";

const MARKER = /^=== (RUN|CONT|NAME|PAUSE)\s+(\S.*)$/;
const RESULT = /^--- (PASS|FAIL|SKIP): (.+?) \((\d+(?:\.\d+)?)s\)$/;
/** `ok  	pkg	0.02s`, `ok  	pkg	(cached)`, `FAIL	pkg	0.02s`, `FAIL	pkg [build failed]`. */
const PACKAGE_LINE = /^(ok|FAIL)\s+(\S+)(?:\s+(?:\d+(?:\.\d+)?s|\(cached\))(?:\s.*)?|\s+\[(build|setup) failed\])$/;
const STATUSES: Record<string, TestStatus> = {
  PASS: "passed",
  pass: "passed",
  FAIL: "failed",
  fail: "failed",
  SKIP: "skipped",
  skip: "skipped",
};

interface GoTest {
  pkg: string | null;
  name: string;
  status: TestStatus | null;
  durationMs: number | null;
  output: string[];
}

/** Tests by package and name, in the order they were first seen. */
class GoTests {
  private readonly byKey = new Map<string, GoTest>();

  get(pkg: string | null, name: string): GoTest {
    const key = `${pkg ?? ""}\u0000${name}`;
    let test = this.byKey.get(key);
    if (!test) {
      test = { pkg, name, status: null, durationMs: null, output: [] };
      this.byKey.set(key, test);
    }
    return test;
  }

  /** Verbose output names the package after its tests: the tests seen without one get it. */
  assignPackage(pkg: string): void {
    for (const [key, test] of [...this.byKey]) {
      if (test.pkg !== null) continue;
      this.byKey.delete(key);
      const named = this.get(pkg, test.name);
      Object.assign(named, { ...test, pkg, output: [...named.output, ...test.output] });
    }
  }

  rows(): TestCaseResult[] {
    const tests = [...this.byKey.values()].filter((test) => test.status !== null);
    const key = (test: GoTest) => `${test.pkg ?? ""}\u0000${test.name}`;
    const children = new Map<string, GoTest[]>();
    for (const test of tests) {
      const slash = test.name.lastIndexOf("/");
      if (slash < 0) continue;
      const parentKey = `${test.pkg ?? ""}\u0000${test.name.slice(0, slash)}`;
      const siblings = children.get(parentKey);
      if (siblings) siblings.push(test);
      else children.set(parentKey, [test]);
    }
    return tests
      .filter((test) => {
        const kids = children.get(key(test));
        if (!kids) return true;
        return test.status === "failed" && !kids.some((kid) => kid.status === "failed");
      })
      .map((test) => ({
        name: test.pkg ? `${test.pkg} > ${test.name}` : test.name,
        status: test.status!,
        durationMs: test.durationMs,
        message: test.status === "passed" ? null : clipMessage(stripCommonIndent(test.output).join("\n")),
      }));
  }
}

export function parseGoTest(options: { lines: readonly string[] }): FormatResult | null {
  const json = parseGoJson(options.lines);
  if (json) return json;
  return parseGoVerbose(options.lines);
}

function parseGoVerbose(lines: readonly string[]): FormatResult | null {
  const tests = new GoTests();
  let verbose = false;
  let packageSeen = false;
  let current: GoTest | null = null;
  /** The last result line and its indentation: deeper lines under it are that test's output. */
  let result: { test: GoTest; indent: number } | null = null;
  for (const line of lines) {
    const indent = indentOf(line);
    const text = line.slice(indent).trimEnd();
    const marker = indent === 0 ? MARKER.exec(text) : null;
    if (marker) {
      verbose = true;
      current = marker[1] === "PAUSE" ? null : tests.get(null, marker[2]!.trim());
      result = null;
      continue;
    }
    const done = RESULT.exec(text);
    if (done) {
      const test = tests.get(null, done[2]!);
      test.status = STATUSES[done[1]!]!;
      test.durationMs = roundMs(Number.parseFloat(done[3]!) * 1000);
      result = { test, indent };
      continue;
    }
    const pkg = indent === 0 ? PACKAGE_LINE.exec(text) : null;
    if (pkg) {
      packageSeen = true;
      tests.assignPackage(pkg[2]!);
      current = null;
      result = null;
      continue;
    }
    if (text === "" || indent === 0) {
      if (text.startsWith("panic: ") && result?.test.status === "failed") result.test.output.push(text);
      continue;
    }
    if (result && indent > result.indent) result.test.output.push(line.trimEnd());
    else if (current) current.output.push(line.trimEnd());
  }
  const rows = tests.rows();
  if (!verbose && !(packageSeen && rows.length === 0 && lines.some((line) => / \[(build|setup) failed\]$/.test(line))))
    return null;
  return { source: "go-test", counts: countRows({ rows }), tests: rows };
}

/** One line of `go test -json` (test2json's event); fields this parser does not read are ignored. */
const goEventSchema = z.object({
  Action: z.string(),
  Package: z.string(),
  Test: z.string().optional(),
  Elapsed: z.number().optional(),
  Output: z.string().optional(),
});
type GoEvent = z.infer<typeof goEventSchema>;

function parseEvent(text: string): GoEvent | null {
  if (!text.startsWith("{") || !text.includes('"Action"')) return null;
  try {
    const event = goEventSchema.safeParse(JSON.parse(text));
    return event.success ? event.data : null;
  } catch {
    return null;
  }
}

/** `go test -json`: null when no line is a test event. */
function parseGoJson(lines: readonly string[]): FormatResult | null {
  const tests = new GoTests();
  let events = 0;
  for (const line of lines) {
    const event = parseEvent(line.trim());
    if (!event) continue;
    events++;
    if (event.Test === undefined) continue;
    const test = tests.get(event.Package, event.Test);
    const status = STATUSES[event.Action];
    if (status) {
      test.status = status;
      if (event.Elapsed !== undefined) test.durationMs = roundMs(event.Elapsed * 1000);
    } else if (event.Action === "output" && event.Output !== undefined) {
      const output = event.Output.replace(/\n$/, "");
      const trimmed = output.trim();
      if (trimmed !== "" && !/^(=== |--- )/.test(trimmed)) test.output.push(output);
    }
  }
  if (events === 0) return null;
  const rows = tests.rows();
  return { source: "go-test", counts: countRows({ rows }), tests: rows };
}

function stripCommonIndent(lines: readonly string[]): string[] {
  let common = Infinity;
  for (const line of lines) if (line.trim() !== "") common = Math.min(common, indentOf(line));
  return lines.map((line) => line.slice(Number.isFinite(common) ? common : 0).trimEnd());
}
