/** A TAP test point being read (its line, then its YAML diagnostics or Mocha's error lines). */
import { roundMs } from "./verdict";

export interface TapTestPoint {
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

export const TEST_POINT = /^(not ok|ok)(?=\s|$)\s*(\d+)?(.*)$/;

/** A test point from its line: indentation, `ok`/`not ok`, and the description after the number. */
export function newTestPoint(options: { indent: number; ok: boolean; description: string }): TapTestPoint {
  return {
    indent: options.indent,
    ok: options.ok,
    ...parseDescription(options.description),
    error: null,
    isSuite: false,
    diagnostics: [],
    stackSeen: false,
  };
}

/** Undoes Node's TAP escaping of names: `\#`, `\\`, `\n`, `\t`, `\r`. */
export function unescapeTap(text: string): string {
  if (!text.includes("\\")) return text;
  return text.replace(/\\([\\#ntr])/g, (_, c: string) => (c === "n" ? "\n" : c === "t" ? "\t" : c === "r" ? "\r" : c));
}

/** node-tap's and tape's ` # time=37.64ms` at the end of a test point: the run's time, not part of the name. */
const TIME_DIRECTIVE = /(?<![\\\s])\s*#\s*time=(\d+(?:\.\d+)?)\s*(ms|s)?\s*$/i;

/** Splits off a trailing `# time=…` directive: the description without it, and the time in ms. */
function splitTimeDirective(description: string): { rest: string; durationMs: number | null } {
  const time = TIME_DIRECTIVE.exec(description);
  if (!time) return { rest: description, durationMs: null };
  const value = Number.parseFloat(time[1]!);
  const durationMs = time[2]?.toLowerCase() === "s" ? value * 1000 : value;
  return {
    rest: description.slice(0, time.index),
    durationMs: Number.isFinite(durationMs) ? roundMs(durationMs) : null,
  };
}

/**
 * Splits `- name # SKIP reason` into name and directive (the first `#` not escaped by a backslash).
 * A `# time=…` directive is dropped from the name (its time kept as the duration); `# SKIP` and
 * `# TODO` become the point's directive, so they are a status, never part of the name.
 */
function parseDescription(text: string): Pick<TapTestPoint, "name" | "directive" | "reason" | "durationMs"> {
  const { rest, durationMs } = splitTimeDirective(text.trim());
  return { ...parseDirective(rest), durationMs };
}

function parseDirective(text: string): Pick<TapTestPoint, "name" | "directive" | "reason"> {
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
export function yamlScalar(text: string): string {
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

export function applyYamlKey(point: TapTestPoint, key: string, value: string): void {
  if (key === "duration_ms") {
    const ms = Number.parseFloat(value);
    if (Number.isFinite(ms)) point.durationMs = roundMs(ms);
  } else if (key === "type") {
    point.isSuite = yamlScalar(value) === "suite";
  } else if (key === "error" || (key === "message" && point.error === null)) {
    point.error = value;
  } else if (key === "diff" && point.error === null) {
    point.error = value; // node-tap's failed assertion: `diff: |` expected and actual, no error text
  }
}
