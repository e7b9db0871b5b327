import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { TRIAL_OUTCOMES } from "../../../shared/trial-outcome";
import { TRIAL_STATES } from "../../../shared/vocabulary";
import { trialHasTokens } from "../../../shared/study-aggregates";
import { verdictScore } from "../study-format";
import { compareTrialPlaces, trialNumber } from "../../../shared/domain-names";

export type SortKey = "choice" | "repeat" | "configuration" | "tests" | "seconds" | "tokens" | "state";
export interface Sort {
  key: SortKey;
  dir: 1 | -1;
}

export type Configurations = ReadonlyMap<number, ConfigurationView>;

/** Sort values; `null` (nothing measured) always sorts last. */
function sortValue(key: SortKey, trial: TrialView, configurations: Configurations): number | string | null {
  const configuration = configurations.get(trial.choice);
  switch (key) {
    case "choice":
      return trial.choice * 1000 + trial.repeat;
    case "repeat":
      return trial.repeat;
    case "configuration":
      return configuration?.label.toLowerCase() ?? null;
    case "tests":
      return trial.verdict ? verdictScore(trial.verdict) : null;
    case "seconds":
      return trial.agentSeconds;
    case "tokens":
      return trialHasTokens(trial) ? trial.tokens.total : null;
    case "state":
      return trial.outcome
        ? TRIAL_STATES.length + TRIAL_OUTCOMES.indexOf(trial.outcome)
        : TRIAL_STATES.indexOf(trial.state);
  }
}

/**
 * The table's order: first attempts by the sort, each followed by its follow-ups (and theirs) in the order of
 * their numbers (3.2, 3.2.1, 3.2.1.1, 3.2.2), so a follow-up always sits right under the trial it continued.
 */
export function sortTrials(trials: readonly TrialView[], configurations: Configurations, sort: Sort): TrialView[] {
  const byId = new Map(trials.map((trial) => [trial.id, trial]));
  const rootOf = (trial: TrialView): TrialView => {
    let current = trial;
    for (let depth = 0; current.parentTrialId && depth < 100; depth++) {
      const parent = byId.get(current.parentTrialId);
      if (!parent) break;
      current = parent;
    }
    return current;
  };
  const followUps = new Map<string, TrialView[]>();
  const firsts: TrialView[] = [];
  for (const trial of trials) {
    const root = rootOf(trial);
    if (root === trial) firsts.push(trial);
    else followUps.set(root.id, [...(followUps.get(root.id) ?? []), trial]);
  }
  return sortFirsts(firsts, configurations, sort).flatMap((trial) => [
    trial,
    ...(followUps.get(trial.id) ?? []).sort(compareTrialPlaces),
  ]);
}

function sortFirsts(trials: readonly TrialView[], configurations: Configurations, sort: Sort): TrialView[] {
  const order = (trial: TrialView) => trial.choice * 1000 + trial.repeat;
  return [...trials].sort((a, b) => {
    const x = sortValue(sort.key, a, configurations);
    const y = sortValue(sort.key, b, configurations);
    if (x !== y) {
      if (x === null) return 1;
      if (y === null) return -1;
      const compared = typeof x === "string" || typeof y === "string" ? String(x).localeCompare(String(y)) : x - y;
      if (compared !== 0) return compared * sort.dir;
    }
    return order(a) - order(b);
  });
}

/** The verdict column stays at the right edge of a table that scrolls sideways (a 390 px phone). */
export const PINNED_COLUMN = "sticky right-0 z-[1] bg-panel";

export const trialColumns: { key: SortKey; label: string; numeric?: boolean }[] = [
  { key: "choice", label: "#" },
  { key: "repeat", label: "Repeat" },
  { key: "configuration", label: "Configuration" },
  { key: "tests", label: "Tests passed" },
  { key: "seconds", label: "Agent seconds", numeric: true },
  { key: "tokens", label: "Tokens", numeric: true },
  { key: "state", label: "Outcome" },
];

/**
 * Whether a trial matches the "Find trials" box: every word must appear in its label (`2.17`), state,
 * outcome, configuration label, harness, model, effort, command or error.
 */
export function matchesFind(trial: TrialView, configuration: ConfigurationView | undefined, text: string): boolean {
  const words = text.trim().toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const haystack = [
    trialNumber(trial),
    trial.state,
    trial.outcome ?? "",
    configuration?.label ?? "",
    configuration?.harness ?? "",
    configuration?.model ?? "",
    configuration?.command ?? "",
    configuration?.reasoningEffort ?? "",
    trial.error ?? "",
  ]
    .join(" ")
    .toLowerCase();
  return words.every((word) => haystack.includes(word));
}
