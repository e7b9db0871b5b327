// How sure a study's numbers are: each configuration's pass rate and mean fraction of tests passed with
// 95 % intervals, and every pair of configurations compared in plain language. Shared by the study page
// and the three reports.
import { z } from "zod";
import { configurationName } from "./domain-names";
import { fisherExactTwoSided, meanInterval, newcombeDifference, repeatsToDetect, wilsonInterval } from "./statistics";

export const intervalSchema = z.object({ low: z.number().min(0).max(1), high: z.number().min(0).max(1) });

/** The method names the reports and the page print beside the figures. */
export const COMPARISON_METHODS = {
  passRate: "Wilson score interval",
  meanFraction: "Student's t interval",
  difference: "Newcombe hybrid score interval (method 10); Fisher's exact test",
} as const;

export interface RateSample {
  choice: number;
  label: string;
  /** Finished trials that passed every test. */
  passedAll: number;
  /** Finished trials. */
  finished: number;
}

export const pairComparisonSchema = z.object({
  /** The configurations, as choice numbers: `better` passes more often when `verdict` is "better". */
  a: z.int().positive(),
  b: z.int().positive(),
  verdict: z.enum(["better", "not-distinguishable", "too-few-repeats"]),
  /** b's pass rate minus a's, from −1 to 1; null when either has no finished trial. */
  difference: z.number().min(-1).max(1).nullable(),
  interval: z.object({ low: z.number(), high: z.number() }).nullable(),
  /** Fisher's exact two-sided p; null when either has no finished trial. */
  fisherP: z.number().min(0).max(1).nullable(),
  /** The sentence shown on the page and in the Markdown report. */
  sentence: z.string(),
});
export type PairComparison = z.infer<typeof pairComparisonSchema>;

const percent = (value: number) => `${Math.round(value * 100)}`;
const points = (value: number) => `${Math.round(value * 100)} points`;
const ratio = (sample: RateSample) => `${sample.passedAll}/${sample.finished}`;

/**
 * The pass rates to plan repeats for, and how many repeats per configuration would tell them apart
 * (α 0.05, power 0.8): the observed rates, or 50 % vs 80 % when they are equal or missing.
 */
export function repeatsPlan(a: RateSample, b: RateSample): { low: number; high: number; repeats: number } {
  const observedA = a.finished > 0 ? a.passedAll / a.finished : null;
  const observedB = b.finished > 0 ? b.passedAll / b.finished : null;
  const [p1, p2] =
    observedA !== null && observedB !== null && observedA !== observedB ? [observedA, observedB] : [0.5, 0.8];
  // a rate of exactly 0 or 1 has no variance to plan with: plan for the nearest rates that have some
  const low = Math.max(Math.min(p1, p2), 0.05);
  const high = Math.min(Math.max(p1, p2), 0.95);
  return { low, high, repeats: repeatsToDetect(low, high) ?? 0 };
}

/** "to tell 50 % from 80 % apart takes about 39 repeats per configuration" */
function repeatsAdvice(a: RateSample, b: RateSample): string {
  const { low, high, repeats } = repeatsPlan(a, b);
  return `to tell ${percent(low)} % from ${percent(high)} % apart takes about ${repeats} repeats per configuration (α 0.05, power 0.8)`;
}

/**
 * Why a gap is not called a difference, in plain words: a large-looking gap from few trials can still be
 * chance. When the interval leaves out zero but Fisher's exact test does not agree, that is said too.
 */
function whyNotDistinguishable(options: {
  a: RateSample;
  b: RateSample;
  /** The gap, winner − loser, and its 95 % interval the same way round. */
  difference: number;
  low: number;
  high: number;
  fisherP: number;
}): string {
  const { a, b, difference, low, high, fisherP } = options;
  const trials = `${Math.min(a.finished, b.finished) < 10 ? "only " : ""}${a.finished} and ${b.finished} trials`;
  if (difference === 0) return `with ${trials} both passed every test equally often`;
  const gap = `the gap of ${points(Math.abs(difference))}`;
  if (low > 0 || high < 0)
    return `with ${trials}, ${gap} can still be chance: Fisher's exact test finds a split at least this uneven ${percent(fisherP)} % of the time when both pass equally often, and a difference is called only under 5 % (the 95 % interval leaves out zero, but at these counts both must agree)`;
  return `with ${trials}, ${gap} can still be chance: its 95 % interval includes zero, so no difference at all is still plausible`;
}

/**
 * Compares configuration `b` with `a` on "passed every test". With fewer than two finished trials on
 * either side no comparison is made; otherwise one is called better only when Newcombe's 95 % interval for
 * the difference excludes zero and Fisher's exact test agrees (p < 0.05).
 */
export function comparePair(a: RateSample, b: RateSample): PairComparison {
  if (a.finished < 2 || b.finished < 2) {
    const fewest = Math.min(a.finished, b.finished);
    const difference = a.finished > 0 && b.finished > 0 ? b.passedAll / b.finished - a.passedAll / a.finished : null;
    return {
      a: a.choice,
      b: b.choice,
      verdict: "too-few-repeats",
      difference,
      interval: null,
      fisherP: null,
      sentence: `${a.label} and ${b.label} cannot be compared with ${fewest === 0 ? "no finished repeat" : "a single finished repeat"} (${ratio(a)} vs ${ratio(b)}): ${repeatsAdvice(a, b)}.`,
    };
  }
  const interval = newcombeDifference(b.passedAll, b.finished, a.passedAll, a.finished);
  if (!interval) throw new Error("unreachable: both configurations have finished trials");
  const fisherP = fisherExactTwoSided(b.passedAll, b.finished - b.passedAll, a.passedAll, a.finished - a.passedAll);
  // both must agree: Newcombe's interval is a little bolder than Fisher's test at the smallest counts
  const excludesZero = (interval.low > 0 || interval.high < 0) && fisherP < 0.05;
  const [winner, loser] = interval.difference >= 0 ? [b, a] : [a, b];
  // the sentence reads "winner − loser", so the interval is turned round when a is ahead
  const [low, high] = interval.difference >= 0 ? [interval.low, interval.high] : [-interval.high, -interval.low];
  const ci = `difference ${points(Math.abs(interval.difference))}, 95 % CI ${percent(low)} to ${percent(high)} points, Fisher's exact p = ${fisherP.toFixed(3)}`;
  return {
    a: a.choice,
    b: b.choice,
    verdict: excludesZero ? "better" : "not-distinguishable",
    difference: interval.difference,
    interval: { low: interval.low, high: interval.high },
    fisherP,
    sentence: excludesZero
      ? `${winner.label} passes more often than ${loser.label}: ${ratio(winner)} vs ${ratio(loser)}, ${ci}.`
      : `${a.label} and ${b.label} are not distinguishable with these repeats: ${ratio(a)} vs ${ratio(b)}; ${whyNotDistinguishable({ a, b, difference: Math.abs(interval.difference), low, high, fisherP })} (${ci}); ${repeatsAdvice(a, b)}.`,
  };
}

/** Every pair of configurations, in choice order (1 vs 2, 1 vs 3, 2 vs 3 …). */
export function compareAllPairs(samples: readonly RateSample[]): PairComparison[] {
  const pairs: PairComparison[] = [];
  samples.forEach((a, i) => samples.slice(i + 1).forEach((b) => pairs.push(comparePair(a, b))));
  return pairs;
}

/** A pass rate's 95 % Wilson interval (null without finished trials). */
export function passRateInterval(passedAll: number, finished: number): z.infer<typeof intervalSchema> | null {
  return wilsonInterval(passedAll, finished);
}

/** The mean fraction of tests passed with its 95 % t interval (the interval is null for fewer than 2). */
export function meanFractionPassed(fractions: readonly number[]): {
  mean: number | null;
  interval: z.infer<typeof intervalSchema> | null;
} {
  if (fractions.length === 0) return { mean: null, interval: null };
  const mean = fractions.reduce((sum, value) => sum + value, 0) / fractions.length;
  const interval = meanInterval(fractions);
  return { mean, interval: interval ? { low: interval.low, high: interval.high } : null };
}

/** "Configuration 2 (gpt-5 · high)": how a comparison names a configuration (its label: configuration-label.ts). */
export function comparisonLabel(configuration: { choice: number; label: string }): string {
  return `${configurationName(configuration.choice)} (${configuration.label})`;
}

/** Every pair of a study's configurations compared, from their aggregates. */
export function compareConfigurations(
  configurations: readonly { choice: number; label: string }[],
  aggregates: readonly { choice: number; passedAll: number; finished: number }[],
): PairComparison[] {
  const samples = configurations.flatMap((configuration) => {
    const aggregate = aggregates.find((entry) => entry.choice === configuration.choice);
    if (!aggregate) return [];
    const { passedAll, finished } = aggregate;
    return [{ choice: configuration.choice, label: comparisonLabel(configuration), passedAll, finished }];
  });
  return compareAllPairs(samples);
}
