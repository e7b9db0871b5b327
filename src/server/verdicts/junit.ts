/**
 * JUnit XML as test runners write it (Node's junit reporter, Vitest, Jest's jest-junit, Mocha's
 * xunit, pytest --junitxml, Maven Surefire …): `<testsuites>` or `<testsuite>` roots, `<testcase>`
 * elements with `<failure>`, `<error>` or `<skipped>` children, `time` in seconds. Counts are the
 * test cases themselves (reporters' count attributes disagree: Mocha's xunit puts failures under
 * `errors`); only a document without any `<testcase>` falls back to the suites' attributes.
 */
import { scanXml, decodeEntities } from "./xml-scanner";
import {
  clipMessage,
  countRows,
  emptyCounts,
  roundMs,
  MAX_MESSAGE_CHARS,
  type Counts,
  type FormatResult,
  type TestCaseResult,
  type TestStatus,
} from "./verdict";

/** Node's junit reporter writes "test" as every case's classname: its enclosing suites (describe blocks) name it instead. */
const NODE_PLACEHOLDER_CLASSNAME = "test";

interface OpenCase {
  name: string;
  classname: string;
  suites: string[];
  durationMs: number | null;
  status: TestStatus;
  message: string | null;
  /** Text of the open <failure>/<error>/<skipped>, used when it has no message attribute. */
  capture: { element: string; parts: string[]; length: number } | null;
}

export interface JunitResult {
  result: FormatResult;
  /** Test cases found; 0 means the documents had JUnit roots but no case (runner crashed, or none matched). */
  caseCount: number;
}

function secondsToMs(value: string | undefined): number | null {
  if (value === undefined || value.trim() === "") return null;
  const text = value.trim();
  // "1,234.5" (thousands, Surefire) or "0,25" (a decimal comma from a locale); "1,234" reads as thousands
  const decimalComma = /^\d+,\d+$/.test(text) && !/^\d{1,3}(,\d{3})+$/.test(text);
  const seconds = Number.parseFloat(decimalComma ? text.replace(",", ".") : text.replace(/,/g, ""));
  return Number.isFinite(seconds) && seconds >= 0 ? roundMs(seconds * 1000) : null;
}

function attributeCount(attributes: Map<string, string>, name: string): number {
  const value = Number.parseInt(attributes.get(name) ?? "", 10);
  return Number.isFinite(value) && value > 0 ? value : 0;
}

function caseName(open: OpenCase): string {
  const prefix =
    open.classname === NODE_PLACEHOLDER_CLASSNAME
      ? open.suites.filter((suite) => suite !== "").join(" > ")
      : open.classname;
  if (prefix === "" || open.name === "") return open.name || prefix;
  return `${prefix} > ${open.name}`;
}

/** Parses every document; null when none has a <testsuites>/<testsuite> root. */
export function parseJunit(options: { documents: readonly string[] }): JunitResult | null {
  const rows: TestCaseResult[] = [];
  const attributeTotals = emptyCounts();
  let rootSeen = false;

  for (const document of options.documents) {
    const suites: string[] = [];
    let open: OpenCase | null = null;
    let outerSuiteAttributes: Map<string, string>[] = [];
    let rootAttributes: Map<string, string> | null = null;

    const finishCapture = () => {
      if (!open?.capture) return;
      if (open.message === null) open.message = clipMessage(open.capture.parts.join(""));
      open.capture = null;
    };
    const finishCase = () => {
      if (!open) return;
      finishCapture();
      rows.push({
        name: caseName(open),
        status: open.status,
        durationMs: open.durationMs,
        message: open.status === "passed" ? null : open.message,
      });
      open = null;
    };

    scanXml({
      text: document,
      onOpen: (name, attributes, selfClosing) => {
        if (name === "testsuites") {
          rootSeen = true;
          rootAttributes ??= attributes;
        } else if (name === "testsuite") {
          rootSeen = true;
          if (suites.length === 0) outerSuiteAttributes.push(attributes);
          if (!selfClosing) suites.push(attributes.get("name") ?? "");
        } else if (name === "testcase") {
          finishCase();
          open = {
            name: attributes.get("name") ?? "",
            classname: attributes.get("classname") ?? attributes.get("class") ?? "",
            suites: [...suites],
            durationMs: secondsToMs(attributes.get("time")),
            status: "passed",
            message: null,
            capture: null,
          };
          if (selfClosing) finishCase();
        } else if (open && (name === "failure" || name === "error" || name === "skipped")) {
          finishCapture();
          const failed = name !== "skipped";
          if (failed || open.status !== "failed") {
            if (failed && open.status !== "failed") open.message = null;
            open.status = failed ? "failed" : "skipped";
            open.message ??= clipMessage(attributes.get("message"));
          }
          if (!selfClosing) open.capture = { element: name, parts: [], length: 0 };
        }
      },
      onClose: (name) => {
        if (name === "testcase") finishCase();
        else if (name === "testsuite") {
          finishCase();
          suites.pop();
        } else if (open?.capture && name === open.capture.element) finishCapture();
      },
      onText: (raw, cdata) => {
        const capture = open?.capture;
        if (!capture || capture.length > MAX_MESSAGE_CHARS * 2) return;
        capture.parts.push(cdata ? raw : decodeEntities(raw));
        capture.length += raw.length;
      },
    });
    finishCase();

    if (outerSuiteAttributes.length === 0 && rootAttributes) outerSuiteAttributes = [rootAttributes];
    for (const attributes of outerSuiteAttributes) addAttributeCounts(attributeTotals, attributes);
  }

  if (!rootSeen) return null;
  const counts = rows.length > 0 ? countRows({ rows }) : attributeTotals;
  return { result: { source: "junit", counts, tests: rows }, caseCount: rows.length };
}

function addAttributeCounts(totals: Counts, attributes: Map<string, string>): void {
  const tests = attributeCount(attributes, "tests");
  const failed = Math.min(tests, attributeCount(attributes, "failures") + attributeCount(attributes, "errors"));
  const skipped = Math.min(
    tests - failed,
    attributeCount(attributes, "skipped") || attributeCount(attributes, "disabled"),
  );
  totals.passed += tests - failed - skipped;
  totals.failed += failed;
  totals.skipped += skipped;
}
