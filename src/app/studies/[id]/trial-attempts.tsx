import type { TrialView } from "../../../shared/study-schemas";
import { verdictCount } from "../../../shared/trial-outcome";
import { TrialOutcomeBadge } from "../state-badge";
import { formatCount, formatDateTime, formatSeconds } from "../study-format";
import { verdictLevelLabel, verdictTextStyle } from "../verdict-style";

/** The attempts before the current one, newest first: what each ran with and what it measured. */
export function TrialAttempts({ trial }: { trial: TrialView }) {
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
              config {attempt.choice}: {attempt.model || attempt.harness} · {attempt.reasoningEffort}
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
