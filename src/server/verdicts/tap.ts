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
 */
import { indentOf, parseCount } from "./output-text";
import { RunSegments } from "./run-segments";
import { clipMessage, countRows, roundMs, type FormatResult, type TestCaseResult } from "./verdict";

interface TapSummary {
  pass?: number;
  fail?: number;
  cancelled?: number;
  skipped?: number;
  todo?: number;
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

interface PendingPoint {
  indent: number;
  ok: boolean;
  name: string;
  directive: "skip" | "todo" | null;
  reason: string;
  durationMs: number | null;
  error: string | null;
  isSuite: boolean;
  diagnostics: string[];
  stackSeen: boolean;
}

interface YamlState {
  indent: number;
  /** A block scalar being read (`error: |-`): its key and lines. */
  blockKey: string | null;
  blockLines: string[];
}

/** Undoes Node's TAP escaping of names: `\#`, `\\`, `\n`, `\t`, `\r`. */
function unescapeTap(text: string): string {
  if (!text.includes("\\")) return text;
  return text.replace(/\\([\\#ntr])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c === "r" ? "\r" : c));
}

/** Splits `- name # SKIP reason` into name and directive (the first `#` not escaped by a backslash). */
function parseDescription(text: string): Pick<PendingPoint, "name" | "directive" | "reason"> {
  let description = text.trim();
  if (description.startsWith("- ")) description = description.slice(2);
  else if (description === "-") description = "";
  for (let i = 0; i < description.length; i++) {
    if (description[i] !== "#") continue;
    let backslashes = 0;
    for (let j = i - 1; j >= 0 && description[j] === "\\"; j--) backslashes++;
    if (backslashes % 2 === 1) continue;
    const after = description.slice(i + 1).trimStart();
    const word = /^(skip|todo)[a-z]*/i.exec(after);
    if (!word) break;
    const reason = after.slice(word[0].length).trim().replace(/^-\s*/, "");
    return {
      name: unescapeTap(description.slice(0, i).trim()),
      directive: word[1]!.toLowerCase() === "skip" ? "skip" : "todo",
      reason,
    };
  }
  return { name: unescapeTap(description), directive: null, reason: "" };
}

/** A YAML scalar as Node writes them: plain, 'single-quoted', "double-quoted". */
function yamlScalar(text: string): string {
  const value = text.trim();
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'")) return value.slice(1, -1).replace(/''/g, "'");
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      const parsed: unknown = JSON.parse(value);
      if (typeof parsed === "string") return parsed;
    } catch {
      // not JSON-compatible escapes: keep the text between the quotes
    }
    return value.slice(1, -1);
  }
  return value;
}

function applyYamlKey(point: PendingPoint, key: string, value: string): void {
  if (key === "duration_ms") {
    const ms = Number.parseFloat(value);
    if (Number.isFinite(ms)) point.durationMs = roundMs(ms);
  } else if (key === "type") {
    point.isSuite = yamlScalar(value) === "suite";
  } else if (key === "error" || (key === "message" && point.error === null)) {
    point.error = value;
  }
}

const TEST_POINT = /^(not ok|ok)(?=\s|$)\s*(\d+)?(.*)$/;
const SUMMARY_COMMENT = /^#\s*([a-z_]+)\s+(\d+)\s*$/;
const YAML_KEY = /^([A-Za-z_][\w-]*):\s?(.*)$/;
const BLOCK_SCALAR = /^[|>][-+]?\d?$/;

export function parseTap(options: { lines: readonly string[] }): FormatResult | null {
  const segments = new RunSegments<TapSummary>();
  const subtests: { indent: number; name: string }[] = [];
  let pending: PendingPoint | null = null;
  let yaml: YamlState | null = null;
  let numberedPoints = 0;

  const finishBlock = () => {
    if (yaml?.blockKey && pending) applyYamlKey(pending, yaml.blockKey, yaml.blockLines.join("\n"));
    if (yaml) yaml.blockKey = null;
  };
  const finishPoint = () => {
    finishBlock();
    yaml = null;
    const point = pending;
    pending = null;
    if (!point || point.isSuite) return;
    const status = point.directive !== null ? "skipped" : point.ok ? "passed" : "failed";
    const message =
      status === "failed"
        ? clipMessage(point.error ?? point.diagnostics.join("\n"))
        : status === "skipped"
          ? clipMessage(point.reason)
          : null;
    const ancestors = subtests.filter((entry) => entry.indent < point.indent).map((entry) => entry.name);
    const row: TestCaseResult = {
      name: [...ancestors, point.name].join(" > "),
      status,
      durationMs: point.durationMs,
      message,
    };
    segments.addRow(row);
  };

  for (const line of options.lines) {
    const indent = indentOf(line);
    const text = line.slice(indent).trimEnd();

    if (yaml && pending) {
      if (text === "..." && indent === yaml.indent) {
        finishBlock();
        yaml = null;
        continue;
      }
      if (text === "" || indent > yaml.indent) {
        if (yaml.blockKey !== null) {
          yaml.blockLines.push(line.slice(Math.min(indentOf(line), yaml.indent + 2)).trimEnd());
          continue;
        }
        if (text === "") continue;
      }
      if (indent === yaml.indent && text !== "") {
        finishBlock();
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
        continue;
      }
      if (indent > yaml.indent) continue; // a nested mapping we do not need
      // a line left of the block: the block ended without its "..."
      finishBlock();
      yaml = null;
    }

    if (pending && !yaml && text === "---" && indent > pending.indent) {
      yaml = { indent, blockKey: null, blockLines: [] };
      continue;
    }

    const point = TEST_POINT.exec(text);
    if (point && point[2] !== undefined) {
      finishPoint();
      numberedPoints++;
      while (subtests.length > 0 && subtests[subtests.length - 1]!.indent > indent) subtests.pop();
      if (subtests.length > 0 && subtests[subtests.length - 1]!.indent === indent) subtests.pop();
      pending = {
        indent,
        ok: point[1] === "ok",
        ...parseDescription(point[3] ?? ""),
        durationMs: null,
        error: null,
        isSuite: false,
        diagnostics: [],
        stackSeen: false,
      };
      continue;
    }

    if (text.startsWith("# Subtest:")) {
      finishPoint();
      while (subtests.length > 0 && subtests[subtests.length - 1]!.indent >= indent) subtests.pop();
      subtests.push({ indent, name: unescapeTap(text.slice("# Subtest:".length).trim()) });
      continue;
    }

    const summary = SUMMARY_COMMENT.exec(text);
    const key = summary ? SUMMARY_KEYS[summary[1]!] : undefined;
    if (summary && key) {
      finishPoint();
      if (key === "ignored") continue;
      const value = parseCount(summary[2]!) ?? 0;
      const current = segments.currentSummary();
      // a key seen again starts a new summary: the last one printed wins as a whole
      segments.setSummary(current && current[key] === undefined ? { ...current, [key]: value } : { [key]: value });
      continue;
    }

    if (pending && !pending.ok && indent > pending.indent && text !== "" && !text.startsWith("#")) {
      // Mocha's TAP reporter: the error as plain indented lines, then its stack
      if (text.startsWith("at ")) pending.stackSeen = true;
      if (!pending.stackSeen) pending.diagnostics.push(text);
      continue;
    }
    if (pending && text !== "" && indent <= pending.indent) finishPoint();
  }
  finishPoint();

  const found = segments.result({ requireSummary: false });
  if (!found) return null;
  const summary = found.summary;
  const fromRows = countRows({ rows: found.rows });
  const hasSummaryCounts = summary !== null && (summary.pass !== undefined || summary.fail !== undefined);
  if (numberedPoints === 0 && !hasSummaryCounts) return null;
  if (!hasSummaryCounts) return { source: "tap", counts: fromRows, tests: found.rows };
  return {
    source: "tap",
    counts: {
      passed: summary.pass ?? 0,
      failed: (summary.fail ?? 0) + (summary.cancelled ?? 0),
      // Mocha's TAP summary has no skipped line: then the skipped rows (TODO included) count
      skipped: summary.skipped !== undefined ? summary.skipped + (summary.todo ?? 0) : fromRows.skipped,
    },
    tests: found.rows,
  };
}
