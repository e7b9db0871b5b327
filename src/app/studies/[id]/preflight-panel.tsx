import type { StudyView } from "../../../shared/study-schemas";
import { dangerBoxClass, Panel, Spinner } from "../../_components/ui";
import { formatBaseline } from "../study-format";

/** The test command on the untouched snapshot, before any model call: the baseline, or why the study was refused. */
export function PreflightPanel({ study, className = "mb-6" }: { study: StudyView; className?: string }) {
  return (
    <Panel title="Preflight" className={className}>
      {study.state === "preflight" ? (
        <p role="status" className="flex items-center gap-2 text-sm">
          <Spinner />
          Running the test command on the untouched project…
        </p>
      ) : null}
      {study.baseline ? (
        <p data-testid="baseline" className="text-sm">
          Baseline, the tests on the untouched project: {formatBaseline(study.baseline)}
        </p>
      ) : study.state !== "preflight" && !study.refusal ? (
        <p className="text-sm text-muted">
          {study.state === "stopped" ? "Stopped before the preflight finished." : "No baseline recorded."}
        </p>
      ) : null}
      {study.refusal ? (
        <div role="alert" data-testid="refusal" className={`mt-3 whitespace-pre-wrap ${dangerBoxClass}`}>
          {study.refusal}
        </div>
      ) : null}
      {study.preflight && study.preflight.output.trim() ? (
        <details className="mt-3 text-sm" open={Boolean(study.refusal)}>
          <summary className="cursor-pointer text-muted">
            Output of the baseline run{study.preflight.exitCode === null ? "" : ` (exit ${study.preflight.exitCode})`}
          </summary>
          <pre
            data-testid="preflight-output"
            className="mt-2 max-h-80 overflow-auto whitespace-pre-wrap rounded-md bg-black/40 p-3 text-xs"
          >
            {study.preflight.output}
          </pre>
        </details>
      ) : null}
    </Panel>
  );
}
