/**
 * TAP (version 13/14 and what Node's, Mocha's and tape's TAP reporters print): `ok N - name`,
 * `not ok N - name`, `# SKIP` / `# TODO` directives, YAML diagnostics (`duration_ms`, `error`,
 * `type: 'suite'`), nested subtests by indentation with `# Subtest: name` headers, and the summary
 * comments `# pass N`, `# fail N`, `# cancelled N`, `# skipped N`, `# todo N`.
 *
 * What counts as a test (the same rule Node's own summary uses): every test point except the ones
 * Node marks `type: 'suite'` (its `describe` blocks). A `test()` with `t.test()` subtests counts
 * too, and fails when a subtest fails. Rows follow this rule, so they add up to Node's summary.
 * TODO tests count as skipped; cancelled tests as failed.
 *
 * node-tap: `ok 1 - adds # time=38.434ms` (the time is the duration, never part of the name), and
 * the closing `# { total: 8, pass: 5, fail: 2, skip: 1 }`, which counts the leaf test points (its
 * assertions): with that summary, points that had subtests are not rows, so the rows add up to it.
 */
import { indentOf, parseCount } from "./output-text";
import { RunSegments } from "./run-segments";
import { applyYamlKey, newTestPoint, TEST_POINT, unescapeTap, yamlScalar, type TapTestPoint } from "./tap-test-point";
import { clipMessage, countRows, type FormatResult, type TestCaseResult } from "./verdict";

interface TapSummary {
  pass?: number;
  fail?: number;
  cancelled?: number;
  skipped?: number;
  todo?: number;
  /** node-tap's closing `# { total: 8, pass: 5, fail: 2, skip: 1 }`: it counts the leaf test points only. */
  leavesOnly?: true;
}

const SUMMARY_KEYS: Record<string, keyof TapSummary | "ignored"> = {
  pass: "pass",
  fail: "fail",
  cancelled: "cancelled",
  skipped: "skipped",
  skip: "skipped",
  todo: "todo",
  tests: "ignored",
  suites: "ignored",
};

interface YamlState {
  indent: number;
  /** A block scalar being read (`error: |-`): its key and lines. */
  blockKey: string | null;
  blockLines: string[];
}

const SUMMARY_COMMENT = /^#\s*([a-z_]+)\s+(\d+)\s*$/;
/** node-tap (18+): `# { total: 8, pass: 5, fail: 2, skip: 1 }`, also with `todo`. */
const SUMMARY_OBJECT = /^#\s*\{\s*(total:\s*\d+(?:\s*,\s*[a-z]+:\s*\d+)*)\s*\}$/;
const YAML_KEY = /^([A-Za-z_][\w-]*):\s?(.*)$/;
const BLOCK_SCALAR = /^[|>][-+]?\d?$/;

export function parseTap(options: { lines: readonly string[] }): FormatResult | null {
  const reader = new TapReader();
  for (const line of options.lines) reader.read(line);
  return reader.result();
}

/** Reads TAP line by line: test points, their YAML blocks, subtest headers and summary comments. */
class TapReader {
  private readonly segments = new RunSegments<TapSummary>();
  private readonly subtests: { indent: number; name: string }[] = [];
  private pending: TapTestPoint | null = null;
  private yaml: YamlState | null = null;
  private numberedPoints = 0;
  /** The indentation of the last test point finished: a point right after a deeper one is that one's parent. */
  private lastPointIndent = -1;
  /** Rows of test points that had subtests (left out when the summary counts leaves only). */
  private readonly parentRows = new WeakSet<TestCaseResult>();

  read(line: string): void {
    const indent = indentOf(line);
    const text = line.slice(indent).trimEnd();
    if (this.readYaml(line, indent, text)) return;
    const { pending } = this;
    if (pending && !this.yaml && text === "---" && indent > pending.indent) {
      this.yaml = { indent, blockKey: null, blockLines: [] };
      return;
    }
    const point = TEST_POINT.exec(text);
    if (point && point[2] !== undefined) return this.startPoint(indent, point);
    if (text.startsWith("# Subtest:")) return this.startSubtest(indent, text);
    if (this.readSummary(text)) return;
    if (pending && !pending.ok && indent > pending.indent && text !== "" && !text.startsWith("#")) {
      // Mocha's TAP reporter: the error as plain indented lines, then its stack
      if (text.startsWith("at ")) pending.stackSeen = true;
      if (!pending.stackSeen) pending.diagnostics.push(text);
      return;
    }
    if (pending && text !== "" && indent <= pending.indent) this.finishPoint();
  }

  result(): FormatResult | null {
    this.finishPoint();
    const found = this.segments.result({ requireSummary: false });
    if (!found) return null;
    const summary = found.summary;
    const rows = summary?.leavesOnly ? found.rows.filter((row) => !this.parentRows.has(row)) : found.rows;
    const fromRows = countRows({ rows });
    const hasSummaryCounts = summary !== null && (summary.pass !== undefined || summary.fail !== undefined);
    if (this.numberedPoints === 0 && !hasSummaryCounts) return null;
    if (!hasSummaryCounts) return { source: "tap", counts: fromRows, tests: rows };
    return {
      source: "tap",
      counts: {
        passed: summary.pass ?? 0,
        failed: (summary.fail ?? 0) + (summary.cancelled ?? 0),
        // Mocha's TAP summary has no skipped line: then the skipped rows (TODO included) count
        skipped: summary.skipped !== undefined ? summary.skipped + (summary.todo ?? 0) : fromRows.skipped,
      },
      tests: rows,
    };
  }

  /** A line inside a test point's YAML block; false when it is not (the block may end before it). */
  private readYaml(line: string, indent: number, text: string): boolean {
    const { yaml, pending } = this;
    if (!yaml || !pending) return false;
    if (text === "..." && indent === yaml.indent) {
      this.finishBlock();
      this.yaml = null;
      return true;
    }
    if (text === "" || indent > yaml.indent) {
      if (yaml.blockKey !== null) {
        yaml.blockLines.push(line.slice(Math.min(indentOf(line), yaml.indent + 2)).trimEnd());
        return true;
      }
      if (text === "") return true;
    }
    if (indent === yaml.indent && text !== "") {
      this.finishBlock();
      const entry = YAML_KEY.exec(text);
      if (entry) {
        const [, key = "", value = ""] = entry;
        if (BLOCK_SCALAR.test(value.trim())) {
          yaml.blockKey = key;
          yaml.blockLines = [];
        } else {
          applyYamlKey(pending, key, yamlScalar(value));
        }
      }
      return true;
    }
    if (indent > yaml.indent) return true; // a nested mapping we do not need
    // a line left of the block: the block ended without its "..."
    this.finishBlock();
    this.yaml = null;
    return false;
  }

  private startPoint(indent: number, point: RegExpExecArray): void {
    const { subtests } = this;
    this.finishPoint();
    this.numberedPoints++;
    while (subtests.length > 0 && subtests[subtests.length - 1]!.indent > indent) subtests.pop();
    if (subtests.length > 0 && subtests[subtests.length - 1]!.indent === indent) subtests.pop();
    this.pending = newTestPoint({ indent, ok: point[1] === "ok", description: point[3] ?? "" });
  }

  private startSubtest(indent: number, text: string): void {
    const { subtests } = this;
    this.finishPoint();
    while (subtests.length > 0 && subtests[subtests.length - 1]!.indent >= indent) subtests.pop();
    subtests.push({ indent, name: unescapeTap(text.slice("# Subtest:".length).trim()) });
  }

  /** A summary comment (`# pass N` …); a key seen again starts a new summary: the last one printed wins as a whole. */
  private readSummary(text: string): boolean {
    const object = SUMMARY_OBJECT.exec(text);
    if (object) {
      this.finishPoint();
      this.segments.setSummary(summaryObject(object[1]!));
      return true;
    }
    const summary = SUMMARY_COMMENT.exec(text);
    const key = summary ? SUMMARY_KEYS[summary[1]!] : undefined;
    if (!summary || !key) return false;
    this.finishPoint();
    if (key === "ignored") return true;
    const value = parseCount(summary[2]!) ?? 0;
    const current = this.segments.currentSummary();
    this.segments.setSummary(current && current[key] === undefined ? { ...current, [key]: value } : { [key]: value });
    return true;
  }

  private finishBlock(): void {
    const { yaml, pending } = this;
    if (yaml?.blockKey && pending) applyYamlKey(pending, yaml.blockKey, yaml.blockLines.join("\n"));
    if (yaml) yaml.blockKey = null;
  }

  private finishPoint(): void {
    this.finishBlock();
    this.yaml = null;
    const point = this.pending;
    this.pending = null;
    if (!point) return;
    const isParent = this.lastPointIndent > point.indent;
    this.lastPointIndent = point.indent;
    if (point.isSuite) return;
    const status = point.directive !== null ? "skipped" : point.ok ? "passed" : "failed";
    const message =
      status === "failed"
        ? clipMessage(point.error ?? point.diagnostics.join("\n"))
        : status === "skipped"
          ? clipMessage(point.reason)
          : null;
    const ancestors = this.subtests.filter((entry) => entry.indent < point.indent).map((entry) => entry.name);
    const row: TestCaseResult = {
      name: [...ancestors, point.name].join(" > "),
      status,
      durationMs: point.durationMs,
      message,
    };
    this.segments.addRow(row);
    if (isParent) this.parentRows.add(row);
  }
}

/** `total: 8, pass: 5, fail: 2, skip: 1, todo: 1` → the summary (TODO is counted apart, as Node does). */
function summaryObject(text: string): TapSummary {
  const summary: TapSummary = { leavesOnly: true, pass: 0, fail: 0, skipped: 0 };
  for (const entry of text.split(",")) {
    const [key = "", value = ""] = entry.split(":").map((part) => part.trim());
    const count = parseCount(value) ?? 0;
    if (key === "pass") summary.pass = count;
    else if (key === "fail") summary.fail = count;
    else if (key === "skip") summary.skipped = count;
    else if (key === "todo") summary.todo = count;
  }
  return summary;
}
