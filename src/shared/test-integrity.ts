import { z } from "zod";
import { count } from "./zod-fields";
import type { TestCounts, VerdictView } from "./verdict-summary";

/**
 * The integrity flag "tests missing": a trial whose evaluation counted fewer tests than the preflight
 * baseline of the untouched snapshot. A syntax error makes node:test report a whole file as one failed
 * test, so "0/1" would hide that 17 were expected; such a trial is judged against the baseline's total
 * (the tests that did not run count as failed) and flagged "tests missing: 16 of 17 did not run".
 */
export const testsMissingSchema = z.object({
  /** Tests the baseline counted that this evaluation did not (expected − counted, at least 1). */
  missing: z.int().positive(),
  /** The baseline's total: what the trial is judged against. */
  expected: z.int().positive(),
  /** What the evaluation itself counted. */
  counted: count,
});
export type TestsMissing = z.infer<typeof testsMissingSchema>;

/** A verdict with test counts (not one read from the test command's exit code only). */
function countedTotal(counts: Pick<TestCounts, "source" | "total"> | null): number | null {
  if (!counts || counts.source === "exit-code" || counts.total === null) return null;
  return counts.total;
}

/**
 * The flag for a trial's verdict against its study's baseline, or null when nothing is missing (or either
 * side has no test counts: a verdict read from the exit code alone is not compared).
 */
export function testsMissing(
  verdict: VerdictView | null,
  baseline: Pick<TestCounts, "source" | "total"> | null,
): TestsMissing | null {
  const counted = countedTotal(verdict);
  const expected = countedTotal(baseline);
  if (counted === null || expected === null || counted >= expected) return null;
  return { missing: expected - counted, expected, counted };
}

/**
 * The verdict judged against the baseline's total: the tests that did not run count as failed, and a
 * trial with missing tests has not passed. Unchanged when nothing is missing.
 */
export function judgedVerdict(verdict: VerdictView | null, missing: TestsMissing | null): VerdictView | null {
  if (!verdict || !missing) return verdict;
  return {
    ...verdict,
    failed: (verdict.failed ?? 0) + missing.missing,
    total: missing.expected,
    ok: false,
  };
}

/** "tests missing: 16 of 17 did not run" */
export function testsMissingText(missing: TestsMissing): string {
  return `tests missing: ${missing.missing} of ${missing.expected} did not run`;
}

/** The longer form for tooltips and reports. */
export function testsMissingExplanation(missing: TestsMissing): string {
  return (
    `The evaluation counted ${missing.counted} test${missing.counted === 1 ? "" : "s"} where the baseline counted ` +
    `${missing.expected}; the ${missing.missing} that did not run count as failed (judged against the baseline's ${missing.expected}).`
  );
}
