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
    const scanned = scanDocument({ document, rows });
    rootSeen ||= scanned.rootSeen;
    for (const attributes of scanned.suiteAttributes) addAttributeCounts(attributeTotals, attributes);
  }
  if (!rootSeen) return null;
  const counts = rows.length > 0 ? countRows({ rows }) : attributeTotals;
  return { result: { source: "junit", counts, tests: rows }, caseCount: rows.length };
}

/**
 * Adds one document's test cases to `rows`; says whether it had a JUnit root, and which attributes
 * count its tests should there be no case at all (its outer suites', else its root's).
 */
function scanDocument(options: { document: string; rows: TestCaseResult[] }): {
  rootSeen: boolean;
  suiteAttributes: Map<string, string>[];
} {
  const suites: string[] = [];
  let open: OpenCase | null = null;
  let rootSeen = false;
  const outerSuiteAttributes: Map<string, string>[] = [];
  let rootAttributes: Map<string, string> | null = null;
  const finishCase = () => {
    if (open) options.rows.push(finishedRow(open));
    open = null;
  };

  scanXml({
    text: options.document,
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
        open = openCase({ attributes, suites });
        if (selfClosing) finishCase();
      } else if (open && (name === "failure" || name === "error" || name === "skipped")) {
        markOutcome({ open, element: name, attributes, selfClosing });
      }
    },
    onClose: (name) => {
      if (name === "testcase") finishCase();
      else if (name === "testsuite") {
        finishCase();
        suites.pop();
      } else if (open?.capture && name === open.capture.element) finishCapture(open);
    },
    onText: (raw, cdata) => {
      const capture = open?.capture;
      if (!capture || capture.length > MAX_MESSAGE_CHARS * 2) return;
      capture.parts.push(cdata ? raw : decodeEntities(raw));
      capture.length += raw.length;
    },
  });
  finishCase();
  const suiteAttributes = outerSuiteAttributes.length === 0 && rootAttributes ? [rootAttributes] : outerSuiteAttributes;
  return { rootSeen, suiteAttributes };
}

function openCase(options: { attributes: Map<string, string>; suites: string[] }): OpenCase {
  const { attributes } = options;
  return {
    name: attributes.get("name") ?? "",
    classname: attributes.get("classname") ?? attributes.get("class") ?? "",
    suites: [...options.suites],
    durationMs: secondsToMs(attributes.get("time")),
    status: "passed",
    message: null,
    capture: null,
  };
}

/** A <failure>, <error> or <skipped> in a test case: a failure outranks a skip, and its message wins. */
function markOutcome(options: {
  open: OpenCase;
  element: "failure" | "error" | "skipped";
  attributes: Map<string, string>;
  selfClosing: boolean;
}): void {
  const { open, element } = options;
  finishCapture(open);
  const failed = element !== "skipped";
  if (failed || open.status !== "failed") {
    if (failed && open.status !== "failed") open.message = null;
    open.status = failed ? "failed" : "skipped";
    open.message ??= clipMessage(options.attributes.get("message"));
  }
  if (!options.selfClosing) open.capture = { element, parts: [], length: 0 };
}

/** The text of an open <failure>/<error>/<skipped> is its message when it had no message attribute. */
function finishCapture(open: OpenCase): void {
  if (!open.capture) return;
  if (open.message === null) open.message = clipMessage(open.capture.parts.join(""));
  open.capture = null;
}

function finishedRow(open: OpenCase): TestCaseResult {
  finishCapture(open);
  return {
    name: caseName(open),
    status: open.status,
    durationMs: open.durationMs,
    message: open.status === "passed" ? null : open.message,
  };
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
