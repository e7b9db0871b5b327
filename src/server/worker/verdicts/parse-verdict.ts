/**
 * The verdict of a test command, from the JUnit XML it wrote or its combined output, in this order
 * of preference: JUnit, TAP, node:test spec, Vitest, Jest, Mocha, pytest, Python unittest, go test
 * (`-v`/`-json`), cargo test, a plain `N passed, N failed` line, and last the exit code alone. Pure: no Docker, no files, no clock.
 * See docs/verdicts.md.
 */
import { parseCargoTest } from "./cargo-test";
import { parseGoTest } from "./go-test";
import { parseJest } from "./jest";
import { parseJunit } from "./junit";
import { parseMocha } from "./mocha";
import { parseNodeSpec } from "./node-spec";
import { outputLines } from "./output-text";
import { parsePytest } from "./pytest";
import { parseSummaryLine } from "./summary-line";
import { parseTap } from "./tap";
import { parseUnittest } from "./unittest";
import { exitCodeVerdict, verdictFromFormat, type FormatResult, type Verdict } from "./verdict";
import { parseVitest } from "./vitest";

type OutputParser = (options: { lines: readonly string[] }) => FormatResult | null;

/** Output formats, most preferred first. */
const OUTPUT_PARSERS: readonly OutputParser[] = [
  parseTap,
  parseNodeSpec,
  parseVitest,
  parseJest,
  parseMocha,
  parsePytest,
  parseUnittest,
  parseGoTest,
  parseCargoTest,
  parseSummaryLine,
];

/** A parser bug must not lose the evaluation: it counts as "format not found". */
function tryParse<T>(parse: () => T | null): T | null {
  try {
    return parse();
  } catch {
    return null;
  }
}

/**
 * A verdict from the command's output (and JUnit files). A command killed by a signal (exit ≥ 128, or
 * no exit code: stopped at its time limit) never passes, whatever the tests it got through said.
 */
export function parseVerdict(input: { output: string; exitCode: number | null; junitXml?: string[] }): Verdict {
  const verdict = parseCounts(input);
  const killed = input.exitCode === null || input.exitCode >= 128;
  return killed && verdict.ok ? { ...verdict, ok: false } : verdict;
}

function parseCounts(input: { output: string; exitCode: number | null; junitXml?: string[] }): Verdict {
  const documents = input.junitXml ?? [];
  const junit = documents.length > 0 ? tryParse(() => parseJunit({ documents })) : null;
  if (
    junit &&
    (junit.caseCount > 0 || junit.result.counts.passed + junit.result.counts.failed + junit.result.counts.skipped > 0)
  ) {
    return verdictFromFormat(junit.result);
  }
  const lines = outputLines({ output: input.output });
  for (const parse of OUTPUT_PARSERS) {
    const result = tryParse(() => parse({ lines }));
    if (result) return verdictFromFormat(result);
  }
  // JUnit files without a single test case, and nothing in the output: zero tests ran
  if (junit) return verdictFromFormat(junit.result);
  return exitCodeVerdict({ exitCode: input.exitCode });
}
