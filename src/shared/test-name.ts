/**
 * A test's name as a key that stays the same from one run to the next: what a runner prints that
 * changes with every run (a TAP `# time=37.64ms` directive, a parenthesised duration, a random seed)
 * is taken out, so the same test in two trials is one row of the per-test matrix. Each verdict parser
 * already splits off the durations and directives of its own format; this is the rule every row
 * passes through last (in the verdict and again when the matrix is built, for rows stored before it).
 * See docs/verdicts.md, "Test names".
 */

/** ` # time=37.64ms` (node-tap, tape) at the end, in any case, with or without a unit. */
const TAP_TIME_DIRECTIVE = /(?<!\s)\s*#\s*time=\d+(?:\.\d+)?\s*(?:ms|s|us|µs|ns)?\s*$/i;
/** ` (0.00s)`, ` (12 ms)`, ` (1.234ms)`, ` [12ms]`, ` (1m 2s)` at the end. */
const TRAILING_DURATION =
  /(?<!\s)\s+[([]\s*(?:\d+m\s*)?\d+(?:\.\d+)?\s*(?:ms|s|sec|secs|seconds|us|µs|ns|milliseconds)\s*[)\]]$/i;
/** `[seed=1234]`, `(seed: -99)`, `(random seed 0x1f)` anywhere. */
const BRACKETED_SEED = /(?<!\s)\s*[([]\s*(?:random\s+)?seed\s*[=:]?\s*-?(?:0x[\da-f]+|\d+)\s*[)\]]/gi;
/** ` seed=1234`, ` --seed=1234`, ` randomly-seed=1234`, ` seed: 1234` at the end. */
const TRAILING_SEED = /(?<!\s)\s+(?:--)?(?:random(?:ly)?[-_ ])?seed\s*[=:]\s*-?(?:0x[\da-f]+|\d+)$/i;

/** The name with per-run noise removed and whitespace trimmed; a name that would become empty is kept as it was. */
export function stableTestName(name: string): string {
  let text = name.trim();
  // each pattern starts only where a run of spaces starts, so a long name costs one scan per pass
  for (let pass = 0; pass < 3; pass++) {
    const before = text;
    text = text.replace(TAP_TIME_DIRECTIVE, "").replace(TRAILING_DURATION, "").replace(TRAILING_SEED, "");
    text = text.replace(BRACKETED_SEED, "").trim();
    if (text === before) break;
  }
  return text === "" ? name.trim() : text;
}
