import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { configurationLabel } from "../../../shared/configuration-label";
import { verdictCount } from "../../../shared/trial-outcome";
import { TrialOutcomeBadge } from "../state-badge";
import { formatCount, formatDateTime, formatSeconds } from "../study-format";
import { verdictLevelLabel, verdictTextStyle } from "../verdict-style";
import { configurationName } from "../../../shared/domain-names";

/**
 * The attempts before the current one, newest first: what each ran with and what it measured. An attempt of
 * the trial's configuration reads its label; one of a configuration a retry edited away, its model and effort.
 */
export function TrialAttempts({
  trial,
  configuration,
}: {
  trial: TrialView;
  configuration: ConfigurationView | undefined;
}) {
  if (trial.attempts.length === 0) return null;
  const attempts = [...trial.attempts].reverse();
  return (
    <section aria-label="Earlier attempts" className="mb-4" data-testid="trial-attempts">
      <h3 className="mb-1 text-xs uppercase tracking-wide text-muted">Earlier attempts</h3>
      <ol className="divide-y divide-line rounded-md border border-line text-sm">
        {attempts.map((attempt) => (
          <li key={attempt.attempt} className="flex flex-wrap items-baseline gap-x-3 gap-y-1 px-3 py-2">
            <span className="font-medium">Attempt {attempt.attempt}</span>
            <TrialOutcomeBadge trial={attempt} />
            <span className="tabular-nums" style={verdictTextStyle(attempt.verdict)}>
              {verdictCount(attempt.verdict) ?? "—"}
            </span>
            <span className="text-xs text-muted">{verdictLevelLabel(attempt.verdict)}</span>
            <span className="text-xs text-muted">
              {configurationName(attempt.choice)}:{" "}
              {attempt.choice === configuration?.choice ? configuration.label : configurationLabel(attempt)}
            </span>
            <span className="text-xs text-muted tabular-nums">
              {formatSeconds(attempt.agentSeconds)} s · {formatCount(attempt.tokens.total)} tokens
            </span>
            <span className="text-xs text-muted">
              retried by {attempt.retriedBy}, {formatDateTime(attempt.retriedAt)}
            </span>
            {attempt.error ? <span className="basis-full text-xs text-danger-soft">{attempt.error}</span> : null}
          </li>
        ))}
      </ol>
    </section>
  );
}
