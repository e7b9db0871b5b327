// The study page's verdict headline once its trials end: each configuration's result in a few words,
// best first, and what the comparisons say, with how many repeats would tell the configurations apart.
// Computed in the browser from the study view it already has (no query of its own).
import { comparePair, comparisonLabel, repeatsPlan, type RateSample } from "./configuration-comparison";
import { numberedLabel } from "./configuration-label";
import { configurationName } from "./domain-names";
import {
  aggregateByConfiguration,
  firstAttempts,
  median,
  trialPassedAll,
  type AggregatableTrial,
} from "./study-aggregates";
import { MAX_TRIALS_PER_STUDY } from "./study-inputs";
import { isTerminalTrialState } from "./vocabulary";

/** passed: every finished trial passed every test; partial: some tests or some trials; failed: no test passed. */
export type ConfigurationResultKind = "passed" | "partial" | "failed" | "no-verdict";

export interface ConfigurationResult {
  choice: number;
  /** "Config 3 · gpt-5 · high" */
  name: string;
  kind: ConfigurationResultKind;
  /** "passed 23/23", "partial 12/23", "passed every test in 2/3 trials", "no verdict" */
  result: string;
}

export interface StudyHeadline {
  results: ConfigurationResult[];
  /** "Config 3 · gpt-5 · high passed 23/23; Config 1 · gpt-5 · low partial 12/23" */
  sentence: string;
  /** What the comparisons say; null with fewer than two configurations with finished trials. */
  comparison: string | null;
  /** The repeats per configuration that would tell them apart; null when none is suggested. */
  suggestedRepeats: number | null;
  /** Repeats that "Run more repeats" adds to each configuration; 0 when the study has no room for more. */
  repeatsToAdd: number;
}

/** At most this many repeats are added per configuration in one click. */
export const MAX_REPEATS_PER_CLICK = 10;

type HeadlineTrial = AggregatableTrial;

const RANK: Record<ConfigurationResultKind, number> = { passed: 0, partial: 1, failed: 2, "no-verdict": 3 };

/** Within a kind, the configuration whose finished trials passed every test more often, then more tests, first. */
function score(trials: readonly HeadlineTrial[], choice: number): [number, number] {
  const finished = trials.filter((trial) => trial.choice === choice && isTerminalTrialState(trial.state));
  if (finished.length === 0) return [0, 0];
  const fractions = finished.map(({ verdict }) =>
    verdict?.passed != null && verdict.total ? verdict.passed / verdict.total : 0,
  );
  return [
    finished.filter(trialPassedAll).length / finished.length,
    fractions.reduce((sum, value) => sum + value, 0) / finished.length,
  ];
}

function byResult(trials: readonly HeadlineTrial[]) {
  return (x: ConfigurationResult, y: ConfigurationResult): number => {
    const [xRate, xTests] = score(trials, x.choice);
    const [yRate, yTests] = score(trials, y.choice);
    return RANK[x.kind] - RANK[y.kind] || yRate - xRate || yTests - xTests || x.choice - y.choice;
  };
}

function tests(trial: HeadlineTrial): string {
  const verdict = trial.verdict;
  if (!verdict) return "";
  if (verdict.source === "exit-code" || verdict.total === null) return verdict.ok ? " (exit code 0)" : " (exit code)";
  return ` ${verdict.passed ?? 0}/${verdict.total}`;
}

/** One finished trial: its own verdict in tests passed. */
function singleResult(trial: HeadlineTrial): Pick<ConfigurationResult, "kind" | "result"> {
  if (!trial.verdict) return { kind: "no-verdict", result: `no verdict (${trial.state})` };
  if (trialPassedAll(trial)) return { kind: "passed", result: `passed${tests(trial)}` };
  const passed = trial.verdict.passed ?? 0;
  return passed > 0
    ? { kind: "partial", result: `partial${tests(trial)}` }
    : { kind: "failed", result: `failed${tests(trial)}` };
}

/** " (median 13/23 tests)" over the trials with counted tests of one total; "" when there are none or totals differ. */
function medianTests(finished: readonly HeadlineTrial[]): string {
  const counted = finished.flatMap(({ verdict }) =>
    verdict?.passed != null && verdict.total ? [{ passed: verdict.passed, total: verdict.total }] : [],
  );
  const total = counted[0]?.total;
  if (total === undefined || counted.some((entry) => entry.total !== total)) return "";
  const middle = median(counted.map((entry) => entry.passed));
  return middle === null ? "" : ` (median ${middle}/${total} tests)`;
}

/** Several finished trials: in how many it passed every test. */
function repeatedResult(finished: readonly HeadlineTrial[]): Pick<ConfigurationResult, "kind" | "result"> {
  const passedAll = finished.filter(trialPassedAll).length;
  const share = `${passedAll}/${finished.length} trials`;
  if (passedAll === finished.length) return { kind: "passed", result: `passed every test in ${share}` };
  if (finished.every((trial) => !trial.verdict)) return { kind: "no-verdict", result: "no verdict in any trial" };
  const anyTest = finished.some((trial) => (trial.verdict?.passed ?? 0) > 0 || trialPassedAll(trial));
  return anyTest
    ? { kind: "partial", result: `partial: passed every test in ${share}${medianTests(finished)}` }
    : { kind: "failed", result: `failed: no test passed in ${finished.length} trials` };
}

function configurationResult(
  configuration: { choice: number; label: string },
  trials: readonly HeadlineTrial[],
): ConfigurationResult {
  const finished = trials.filter((trial) => trial.choice === configuration.choice && isTerminalTrialState(trial.state));
  const name = numberedLabel(configuration);
  if (finished.length === 0)
    return { choice: configuration.choice, name, kind: "no-verdict", result: "no finished trial" };
  const own = finished.length === 1 ? singleResult(finished[0] as HeadlineTrial) : repeatedResult(finished);
  return { choice: configuration.choice, name, ...own };
}

const repeatsText = (count: number) => `${count} repeat${count === 1 ? "" : "s"}`;

/** What the pairwise comparisons say, in one clause, and the repeats per configuration they suggest. */
function comparisonOf(samples: readonly RateSample[]): { text: string; suggested: number | null } | null {
  if (samples.length < 2) return null;
  const pairs: { a: RateSample; b: RateSample }[] = [];
  samples.forEach((a, i) => samples.slice(i + 1).forEach((b) => pairs.push({ a, b })));
  const better: string[] = [];
  // the repeats that would tell apart the undecided pairs whose rates differ (equal rates: 50 % vs 80 %)
  const differing: number[] = [];
  const tied: number[] = [];
  for (const { a, b } of pairs) {
    const comparison = comparePair(a, b);
    if (comparison.verdict === "better") {
      const [winner, loser] = (comparison.difference ?? 0) >= 0 ? [b, a] : [a, b];
      better.push(`${configurationName(winner.choice)} passes more often than ${configurationName(loser.choice)}`);
    } else (comparison.difference ? differing : tied).push(repeatsPlan(a, b).repeats);
  }
  const undecided = differing.length + tied.length;
  const suggested = Math.max(0, ...(differing.length > 0 ? differing : tied));
  const have = Math.min(...samples.map((sample) => sample.finished));
  const advice = suggested > have ? ` — run ${suggested}+ repeats to tell them apart` : "";
  const rest =
    undecided === 0
      ? ""
      : `${better.length > 0 ? "the others are " : ""}not distinguishable with ${repeatsText(have)}${advice}`;
  return { text: [...better, rest].filter(Boolean).join("; "), suggested: suggested > have ? suggested : null };
}

/** How many repeats one click adds per configuration: up to the suggestion, else as many as ran; within the study's cap. */
function repeatsToAdd(options: { have: number; suggested: number | null; configurations: number; trials: number }) {
  const { have, suggested, configurations, trials } = options;
  if (configurations === 0) return 0;
  const room = Math.floor((MAX_TRIALS_PER_STUDY - trials) / configurations);
  const wanted = suggested !== null ? suggested - have : Math.max(have, 1);
  return Math.max(0, Math.min(wanted, MAX_REPEATS_PER_CLICK, room));
}

/**
 * The headline of a study whose trials have ended: each configuration's result, best first, and the
 * comparison advice. Null while a trial is still open, and for a study without trials.
 */
export function studyHeadline(study: {
  configurations: readonly { choice: number; label: string }[];
  trials: readonly HeadlineTrial[];
}): StudyHeadline | null {
  if (!study.trials.every((trial) => isTerminalTrialState(trial.state))) return null;
  // follow-ups (trials continued with feedback) are no samples of their configurations
  const trials = firstAttempts(study.trials);
  if (trials.length === 0) return null;
  const ran = study.configurations.filter((configuration) =>
    trials.some((trial) => trial.choice === configuration.choice),
  );
  const results = ran.map((configuration) => configurationResult(configuration, trials)).sort(byResult(trials));
  const aggregates = aggregateByConfiguration({ configurations: ran, trials });
  const samples = ran.map((configuration, index) => ({
    choice: configuration.choice,
    label: comparisonLabel(configuration),
    passedAll: aggregates[index]?.passedAll ?? 0,
    finished: aggregates[index]?.finished ?? 0,
  }));
  const comparison = comparisonOf(samples);
  const have = Math.min(...samples.map((sample) => sample.finished));
  return {
    results,
    sentence: results.map((entry) => `${entry.name} ${entry.result}`).join("; "),
    comparison: comparison?.text ?? null,
    suggestedRepeats: comparison?.suggested ?? null,
    repeatsToAdd: repeatsToAdd({
      have,
      suggested: comparison?.suggested ?? null,
      configurations: ran.length,
      trials: trials.length,
    }),
  };
}
