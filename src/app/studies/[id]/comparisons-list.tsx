"use client";
import { useMemo } from "react";
import { COMPARISON_METHODS, compareConfigurations } from "../../../shared/configuration-comparison";
import type { StudyAggregate } from "../../../shared/study-report";
import type { ConfigurationView } from "../../../shared/study-schemas";

const VERDICT_STYLE = {
  better: "border-ok-strong/50",
  "not-distinguishable": "border-line",
  "too-few-repeats": "border-warn-strong/50",
} as const;

/** Every pair of configurations compared on "passed every test", one plain sentence each, with the method. */
export function ComparisonsList({
  configurations,
  aggregates,
}: {
  configurations: readonly ConfigurationView[];
  aggregates: readonly StudyAggregate[];
}) {
  const comparisons = useMemo(() => compareConfigurations(configurations, aggregates), [configurations, aggregates]);
  if (comparisons.length === 0) return null;
  return (
    <section aria-label="Comparisons" className="mt-4">
      <h3 className="text-sm font-semibold">Comparisons</h3>
      <p className="mb-2 text-xs text-muted">
        On “passed every test”, pair by pair ({COMPARISON_METHODS.difference}). A configuration is called better only
        when the 95 % interval of the difference excludes zero and Fisher's exact p is below 0.05.
      </p>
      <ul className="grid gap-1 text-sm">
        {comparisons.map((comparison) => (
          <li
            key={`${comparison.a}-${comparison.b}`}
            data-testid="comparison"
            data-verdict={comparison.verdict}
            className={`border-l-2 pl-3 ${VERDICT_STYLE[comparison.verdict]}`}
          >
            {comparison.sentence}
          </li>
        ))}
      </ul>
    </section>
  );
}
