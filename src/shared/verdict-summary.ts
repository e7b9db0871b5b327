import { z } from "zod";
import { count } from "./zod-fields";

/** Test counts read from the test command's output; `source` names the parser (junit, node-test, exit-code, ...). */
export const testCountsSchema = z.object({
  passed: count.nullable(),
  failed: count.nullable(),
  skipped: count.nullable(),
  total: count.nullable(),
  source: z.string().min(1),
});
export type TestCounts = z.infer<typeof testCountsSchema>;

/** A verdict as events, views and reports carry it: the counts and whether the run passed. */
export const verdictSchema = testCountsSchema.extend({ ok: z.boolean() });
export type VerdictView = z.infer<typeof verdictSchema>;

/** Just the verdict's counts, source and outcome (a parser's verdict also carries its per-test rows). */
export function verdictSummary(verdict: VerdictView | null): VerdictView | null {
  if (!verdict) return null;
  const { passed, failed, skipped, total, source, ok } = verdict;
  return { passed, failed, skipped, total, source, ok };
}

export const testStatusSchema = z.enum(["passed", "failed", "skipped"]);

/**
 * Per-test rows kept of one evaluation (failed rows first when there are more). Above a suite's size, so
 * that two trials of a 10,000-test suite keep the same tests and match row for row in the matrix.
 */
export const MAX_TEST_ROWS = 20_000;

/** One test of a trial's evaluation, in the order the runner reported it. */
export const testResultSchema = z.object({
  name: z.string(),
  status: testStatusSchema,
  durationMs: z.number().nullable(),
  message: z.string().nullable(),
});
export type TestResultView = z.infer<typeof testResultSchema>;
