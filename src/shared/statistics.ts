// Small-sample statistics for comparing configurations: Wilson score intervals for a pass rate, Newcombe's
// hybrid score interval for a difference of two rates, Fisher's exact test, a t interval for a mean, and
// the repeats needed to detect a difference. Pure functions: the study page and the reports share them.

/** z for a two-sided 95 % interval. */
export const Z_95 = 1.959963984540054;
/** z for 80 % power (one-sided). */
const Z_POWER_80 = 0.8416212335729143;

export interface Interval {
  low: number;
  high: number;
}

/** Wilson score interval of a proportion `successes / trials`; null when there are no trials. */
export function wilsonInterval(successes: number, trials: number, z = Z_95): Interval | null {
  if (trials <= 0) return null;
  const p = successes / trials;
  const z2 = z * z;
  const centre = (p + z2 / (2 * trials)) / (1 + z2 / trials);
  const half = (z / (1 + z2 / trials)) * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials)) || 0;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

export interface DifferenceInterval extends Interval {
  /** p1 − p2. */
  difference: number;
}

/**
 * Newcombe's hybrid score interval (his method 10) for p1 − p2 of two independent proportions, built from
 * the two Wilson intervals. Well-behaved at 0 and at the bounds, where the Wald interval is not.
 */
export function newcombeDifference(
  x1: number,
  n1: number,
  x2: number,
  n2: number,
  z = Z_95,
): DifferenceInterval | null {
  const w1 = wilsonInterval(x1, n1, z);
  const w2 = wilsonInterval(x2, n2, z);
  if (!w1 || !w2) return null;
  const p1 = x1 / n1;
  const p2 = x2 / n2;
  const difference = p1 - p2;
  return {
    difference,
    low: difference - Math.sqrt((p1 - w1.low) ** 2 + (w2.high - p2) ** 2),
    high: difference + Math.sqrt((w1.high - p1) ** 2 + (p2 - w2.low) ** 2),
  };
}

const logFactorials: number[] = [0];
function logFactorial(n: number): number {
  let last = logFactorials[logFactorials.length - 1] ?? 0;
  for (let k = logFactorials.length; k <= n; k++) {
    last += Math.log(k);
    logFactorials[k] = last;
  }
  return logFactorials[n] ?? 0;
}

/**
 * Fisher's exact test of the 2×2 table [[a, b], [c, d]], two-sided: the probability, given the margins,
 * of a table at least as unlikely as this one.
 */
export function fisherExactTwoSided(a: number, b: number, c: number, d: number): number {
  const row1 = a + b;
  const col1 = a + c;
  const total = a + b + c + d;
  const logDenominator = logFactorial(total) - logFactorial(row1) - logFactorial(total - row1) - logFactorial(col1);
  const probability = (x: number) =>
    Math.exp(
      logFactorial(total - col1) -
        logDenominator -
        logFactorial(x) -
        logFactorial(row1 - x) -
        logFactorial(col1 - x) -
        logFactorial(total - row1 - col1 + x),
    );
  const observed = probability(a);
  let p = 0;
  for (let x = Math.max(0, row1 + col1 - total); x <= Math.min(row1, col1); x++) {
    const px = probability(x);
    if (px <= observed * (1 + 1e-7)) p += px;
  }
  return Math.min(1, p);
}

// Student's t, 97.5th percentile, for 1–30 degrees of freedom.
const T_975 = [
  12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.306, 2.2622, 2.2281, 2.201, 2.1788, 2.1604, 2.1448, 2.1314,
  2.1199, 2.1098, 2.1009, 2.093, 2.086, 2.0796, 2.0739, 2.0687, 2.0639, 2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423,
];

/** t's 97.5th percentile: the table to 30 degrees of freedom, then the Cornish–Fisher expansion. */
export function tQuantile975(degreesOfFreedom: number): number {
  if (degreesOfFreedom < 1) throw new RangeError("a t quantile needs at least one degree of freedom");
  const tabled = T_975[Math.floor(degreesOfFreedom) - 1];
  if (tabled !== undefined) return tabled;
  const z = Z_95;
  const v = degreesOfFreedom;
  return z + (z ** 3 + z) / (4 * v) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * v * v);
}

export interface MeanInterval extends Interval {
  mean: number;
}

/** The mean of `values` with its 95 % t interval, clamped to [lowest, highest]; no interval for one value. */
export function meanInterval(values: readonly number[], bounds: Interval = { low: 0, high: 1 }): MeanInterval | null {
  const n = values.length;
  if (n === 0) return null;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  if (n === 1) return null;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1);
  const half = tQuantile975(n - 1) * Math.sqrt(variance / n);
  return { mean, low: Math.max(bounds.low, mean - half), high: Math.min(bounds.high, mean + half) };
}

/**
 * Repeats per configuration needed to tell rates p1 and p2 apart (two-sided α = 0.05, power 0.8), by the
 * normal approximation for two proportions; null when they are equal.
 */
export function repeatsToDetect(p1: number, p2: number): number | null {
  if (p1 === p2) return null;
  const mean = (p1 + p2) / 2;
  const numerator = Z_95 * Math.sqrt(2 * mean * (1 - mean)) + Z_POWER_80 * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  return Math.ceil((numerator / (p1 - p2)) ** 2);
}
