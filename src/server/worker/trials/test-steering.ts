import { displayPath, type BytePath } from "../../../lib/files/byte-path";
import { MAX_TEST_STEERING, type TestSteeringChange } from "../../../shared/test-steering";

/**
 * Which changed files steer how tests run (src/shared/test-steering.ts): the one list of what counts. A rule
 * matches a path (mostly by its file name); a few files steer only through one part of them
 * (package.json's `scripts`, pyproject.toml's `[tool.pytest…]`), and count when that part changed.
 */
interface SteeringRule {
  /** Matched against the path relative to the tree root. */
  path: RegExp;
  steers: string;
  /** The part of the file that steers: a change elsewhere in it does not count. */
  part?: (text: string) => string;
}

const SCRIPT = "[cm]?[jt]sx?";

/** package.json fields runners and npm read as configuration. */
const PACKAGE_FIELDS = ["scripts", "jest", "mocha", "ava", "tap", "c8", "nyc", "babel", "imports"] as const;

function packageFields(text: string): string {
  try {
    const json: unknown = JSON.parse(text);
    if (!json || typeof json !== "object") return text;
    const record = json as Record<string, unknown>;
    return JSON.stringify(PACKAGE_FIELDS.map((field) => record[field] ?? null));
  } catch {
    return text; // not JSON: any change counts
  }
}

/** The INI/TOML sections whose header starts with one of `prefixes` ("[tool.pytest"), as text. */
function sections(...prefixes: string[]): (text: string) => string {
  return (text) => {
    const kept: string[] = [];
    let keep = false;
    for (const line of text.split("\n")) {
      const header = line.trim();
      if (header.startsWith("[")) keep = prefixes.some((prefix) => header.startsWith(prefix));
      if (keep) kept.push(line.trimEnd());
    }
    return kept.join("\n");
  };
}

/** A name anywhere in the tree ("conftest.py", "tests/conftest.py"). */
const named = (pattern: string, flags = "") => new RegExp(`(^|/)(${pattern})$`, flags);

export const STEERING_RULES: readonly SteeringRule[] = [
  { path: named("conftest\\.py"), steers: "pytest hooks and fixtures" },
  { path: named("\\.?pytest\\.ini"), steers: "pytest configuration" },
  { path: named("pyproject\\.toml"), steers: "pytest configuration ([tool.pytest])", part: sections("[tool.pytest") },
  { path: named("setup\\.cfg"), steers: "pytest configuration ([tool:pytest])", part: sections("[tool:pytest") },
  { path: named("tox\\.ini"), steers: "tox and pytest configuration" },
  { path: named("(sitecustomize|usercustomize)\\.py"), steers: "Python start-up hook" },
  { path: named("[^/]+\\.pth"), steers: "Python path hook (run at start-up)" },
  { path: /(^|\/)\.pytest_cache(\/|$)/, steers: "pytest cache (what --lf / --ff run)" },
  { path: named("package\\.json"), steers: `package.json ${PACKAGE_FIELDS.join(", ")}`, part: packageFields },
  {
    path: named(
      `(jest|vitest|vite|ava|playwright|cypress|babel)\\.config\\.(${SCRIPT}|json)|vitest\\.workspace\\.[cm]?[jt]s(on)?|karma\\.conf\\.[cm]?[jt]s`,
    ),
    steers: "test runner configuration",
  },
  {
    path: named("\\.(mocharc|taprc|babelrc|swcrc|nycrc)(\\.[a-z]+)?"),
    steers: "test runner or transpiler configuration",
  },
  { path: named("[jt]sconfig(\\.[\\w-]+)?\\.json"), steers: "TypeScript compiler configuration" },
  {
    path: named(
      `(setup|setup-?tests?|setupTests|test-?setup|global-?(setup|teardown)|(jest|vitest)\\.setup)\\.${SCRIPT}`,
      "i",
    ),
    steers: "test setup file",
  },
  {
    path: named("\\.(npmrc|yarnrc|yarnrc\\.yml|pnpmfile\\.cjs)"),
    steers: "package manager settings (node-options, scripts)",
  },
  {
    path: named("bunfig\\.toml|deno\\.jsonc?|node\\.config\\.json"),
    steers: "runtime configuration (preloads, options)",
  },
  { path: named("\\.cargo/config(\\.toml)?"), steers: "Cargo runner and flags" },
  { path: named("\\.gitignore"), steers: "ignore rules (what the review and the evaluation include)" },
];

/** Files the test command itself names (`sh run-tests.sh`, `node --require ./hook.cjs`), and Makefiles for `make`. */
function namedByCommand(testCommand: string): Set<string> {
  const files = new Set<string>();
  for (const raw of testCommand.split(/[\s;&|()<>]+/)) {
    const token = raw.replace(/^['"]|['"]$/g, "").replace(/^--[\w-]+=/, "");
    if (token === "make") for (const name of ["Makefile", "makefile", "GNUmakefile"]) files.add(name);
    if (token === "just") files.add("justfile");
    if (/[./]/.test(token) && !token.startsWith("-") && !token.startsWith("/")) files.add(token.replace(/^\.\//, ""));
  }
  return files;
}

/** What steers in `rel`, or null; `read` gives the file's bytes before and after for the rules that look inside. */
export async function steeringOf(options: {
  rel: string;
  change: TestSteeringChange["change"];
  named: ReadonlySet<string>;
  read: (side: "before" | "after") => Promise<Buffer | null>;
}): Promise<string | null> {
  if (options.named.has(options.rel)) return "named by the test command";
  const rule = STEERING_RULES.find((candidate) => candidate.path.test(options.rel));
  if (!rule) return null;
  if (!rule.part || options.change !== "modified") return rule.steers;
  const [before, after] = await Promise.all([options.read("before"), options.read("after")]);
  if (!before || !after) return rule.steers;
  return rule.part(before.toString("utf8")) === rule.part(after.toString("utf8")) ? null : rule.steers;
}

/**
 * The steering files among a trial's changes (`changes`, what the review shows and the evaluation runs) and
 * the paths the diff left out (`leftOut`, by name only: hidden, never evaluated). Captured files are not
 * listed: the evaluation restores them byte for byte (the tamper indicator lists them).
 */
export async function findTestSteering(options: {
  changes: readonly { path: BytePath; status: TestSteeringChange["change"] }[];
  leftOut: readonly BytePath[];
  captured: readonly string[];
  testCommand: string;
  read: (path: BytePath, side: "before" | "after") => Promise<Buffer | null>;
}): Promise<TestSteeringChange[]> {
  const captured = new Set(options.captured);
  const named = namedByCommand(options.testCommand);
  const found: TestSteeringChange[] = [];
  for (const change of options.changes) {
    const rel = displayPath(change.path);
    if (captured.has(rel)) continue;
    const read = (side: "before" | "after") => options.read(change.path, side);
    const steers = await steeringOf({ rel, change: change.status, named, read });
    if (steers) found.push({ path: rel, change: change.status, steers, shown: true });
    if (found.length >= MAX_TEST_STEERING) return found;
  }
  for (const path of options.leftOut) {
    const rel = displayPath(path);
    if (captured.has(rel)) continue;
    const steers = await steeringOf({ rel, change: "added", named, read: () => Promise.resolve(null) });
    if (steers) found.push({ path: rel, change: "added", steers, shown: false });
    if (found.length >= MAX_TEST_STEERING) break;
  }
  return found;
}
