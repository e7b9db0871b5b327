"use client";
import { useMemo } from "react";
import type { TrialView } from "../../../../shared/study-schemas";
import { manifestDifferences, type TrialManifest } from "../../../../shared/trial-manifest";
import { manifestFieldLabel } from "../../../../shared/manifest-field-labels";
import { Panel } from "../../../_components/ui";
import { trialName } from "../../../../shared/domain-names";

/** "What differed": the manifest fields that are not the same in all the chosen trials, side by side. */
export function ManifestDiff({ trials }: { trials: readonly TrialView[] }) {
  const withManifest = trials.filter((trial): trial is TrialView & { manifest: TrialManifest } => !!trial.manifest);
  const rows = useMemo(() => manifestDifferences(withManifest.map((trial) => trial.manifest)), [withManifest]);
  const without = trials.length - withManifest.length;
  return (
    <Panel title="What differed">
      {withManifest.length < 2 ? (
        <p className="text-sm text-muted">
          Fewer than two of these trials have a manifest (trials queued before manifests existed have none).
        </p>
      ) : rows.length === 0 ? (
        <p className="text-sm text-muted" data-testid="manifest-diff-none">
          Their manifests agree on everything: same image, snapshot, configuration, test command, captured files and
          limits.
        </p>
      ) : (
        <div className="overflow-x-auto">
          <table className="text-sm" data-testid="manifest-diff">
            <thead>
              <tr className="text-left text-xs text-muted">
                <th className="px-2 py-1 font-normal">Field</th>
                {withManifest.map((trial) => (
                  <th key={trial.id} className="px-2 py-1 font-normal">
                    {trialName(trial)}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {rows.map((row) => (
                <tr
                  key={row.path}
                  className="border-t border-line align-top"
                  data-testid="manifest-diff-row"
                  data-path={row.path}
                >
                  <th scope="row" className="px-2 py-1 text-left text-xs font-normal" title={row.path}>
                    {manifestFieldLabel(row.path)}
                  </th>
                  {row.values.map((value, index) => (
                    <td
                      key={withManifest[index]?.id ?? index}
                      className="max-w-80 px-2 py-1 font-mono text-xs break-all whitespace-pre-wrap"
                    >
                      {value}
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {without > 0 && withManifest.length >= 2 ? (
        <p className="mt-2 text-xs text-muted">{without} of the chosen trials have no manifest and are left out.</p>
      ) : null}
    </Panel>
  );
}
