import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { TRIAL_OUTCOMES } from "../../../shared/trial-outcome";
import { TRIAL_STATES } from "../../../shared/vocabulary";
import { trialHasTokens } from "../../../shared/study-aggregates";
import { verdictScore } from "../study-format";

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

export function sortTrials(trials: readonly TrialView[], configurations: Configurations, sort: Sort): TrialView[] {
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
    `${trial.choice}.${trial.repeat}`,
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
