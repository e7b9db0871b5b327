"use client";
import { useQuery } from "@tanstack/react-query";
import { useMemo, type ReactNode } from "react";
import type { ConfigurationView, TrialView } from "../../../shared/study-schemas";
import { isTerminalTrialState } from "../../../shared/vocabulary";
import { secondaryButtonClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { focusRing, formatDateTime, formatSeconds, formatVerdict, shortId } from "../study-format";
import type { LogTails } from "./log-tails";
import { TrialLog } from "./trial-log";
import { trialLabel } from "./trial-row";

const testStatusStyle: Record<string, string> = {
  passed: "text-emerald-300",
  failed: "text-red-300",
  skipped: "text-muted",
};

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs uppercase tracking-wide text-muted">{label}</dt>
      <dd className="mt-0.5 break-all text-sm">{children}</dd>
    </div>
  );
}

/** One trial in full: outcome, diff, thread, per-test results (failed first) and its live log. */
export function TrialDetail({
  trial,
  configuration,
  tails,
  onClose,
}: {
  trial: TrialView;
  configuration: ConfigurationView | undefined;
  tails: LogTails;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const finished = isTerminalTrialState(trial.state);
  const tests = useQuery(trpc.studies.trialTests.queryOptions({ trialId: trial.id }, { enabled: finished }));
  const orderedTests = useMemo(() => {
    const rows = tests.data ?? [];
    return [...rows.filter((row) => row.status === "failed"), ...rows.filter((row) => row.status !== "failed")];
  }, [tests.data]);
  const failedCount = orderedTests.filter((row) => row.status === "failed").length;

  return (
    <section
      aria-label={`Trial ${trialLabel(trial)}`}
      data-testid="trial-detail"
      data-trial-id={trial.id}
      className="my-2 rounded-lg border border-line bg-[#0b0d12]/60 p-4"
    >
      <div className="mb-4 flex items-start justify-between gap-4">
        <div>
          <h3 className="text-sm font-semibold">Trial {trialLabel(trial)}</h3>
          <p className="text-sm text-muted">
            {configuration
              ? `${configuration.harness} · ${configuration.model} · ${configuration.reasoningEffort}`
              : null}
            {configuration?.command ? <code className="ml-2 font-mono text-xs">{configuration.command}</code> : null}
            {configuration?.instructions ? (
              <span className="mt-1 block whitespace-pre-wrap text-xs">Instructions: {configuration.instructions}</span>
            ) : null}
          </p>
        </div>
        <button type="button" className={`${secondaryButtonClass} ${focusRing}`} onClick={onClose}>
          Close
        </button>
      </div>
      {trial.error ? (
        <div
          role="alert"
          data-testid="trial-error"
          className="mb-4 whitespace-pre-wrap rounded-md border border-red-500/60 bg-red-500/10 p-3 text-sm text-red-200"
        >
          {trial.error}
        </div>
      ) : null}
      <dl className="mb-4 grid gap-4 md:grid-cols-4">
        <Fact label="Tests passed">
          {formatVerdict(trial.verdict)}
          {trial.verdict ? <span className="ml-1 text-xs text-muted">({trial.verdict.source})</span> : null}
        </Fact>
        <Fact label="Exit code">{trial.exitCode ?? "—"}</Fact>
        <Fact label="Diff">
          {trial.diff
            ? `${trial.diff.files} file${trial.diff.files === 1 ? "" : "s"}, +${trial.diff.insertions} −${trial.diff.deletions}`
            : "—"}
        </Fact>
        <Fact label="Seconds">
          agent {formatSeconds(trial.agentSeconds)} · eval {formatSeconds(trial.evalSeconds)}
        </Fact>
        <Fact label="Tokens">
          {trial.tokens.total.toLocaleString("en-US")}{" "}
          <span className="text-xs text-muted">
            (in {trial.tokens.input.toLocaleString("en-US")}, cached {trial.tokens.cachedInput.toLocaleString("en-US")},
            out {trial.tokens.output.toLocaleString("en-US")}, reasoning{" "}
            {trial.tokens.reasoning.toLocaleString("en-US")})
          </span>
        </Fact>
        <Fact label="Thread">
          <span className="font-mono text-xs">{trial.threadId ?? "—"}</span>
        </Fact>
        <Fact label="Harness version">{trial.harnessVersion ?? "—"}</Fact>
        <Fact label="Attempt">
          {trial.attempt} · {trial.commandsRun} command{trial.commandsRun === 1 ? "" : "s"}
        </Fact>
        <Fact label="Started">{formatDateTime(trial.startedAt)}</Fact>
        <Fact label="Finished">{formatDateTime(trial.finishedAt)}</Fact>
        <Fact label="Result image">
          <span className="font-mono text-xs">{shortId(trial.committedImageId)}</span>
        </Fact>
        <Fact label="Workspace">
          <span className="font-mono text-xs">{trial.workspaceId ?? "—"}</span>
        </Fact>
      </dl>

      <h3 className="mb-1 text-xs uppercase tracking-wide text-muted">
        Tests{tests.data ? ` (${tests.data.length}${failedCount > 0 ? `, ${failedCount} failed` : ""})` : ""}
      </h3>
      {!finished ? (
        <p className="mb-4 text-sm text-muted">Per-test results appear when the evaluation finishes.</p>
      ) : null}
      {tests.error ? <p className="mb-4 text-sm text-red-400">{describeError(tests.error).message}</p> : null}
      {finished && tests.data?.length === 0 ? (
        <p className="mb-4 text-sm text-muted">
          No per-test results (the verdict came from {trial.verdict?.source ?? "nowhere"}).
        </p>
      ) : null}
      {orderedTests.length > 0 ? (
        <div className="mb-4 max-h-80 overflow-auto rounded-md border border-line">
          <table className="w-full text-left text-sm" aria-label="Test results">
            <thead className="sticky top-0 bg-panel text-xs uppercase text-muted">
              <tr>
                <th className="px-2 py-1">Test</th>
                <th className="px-2">Status</th>
                <th className="px-2 text-right">ms</th>
                <th className="px-2">Message</th>
              </tr>
            </thead>
            <tbody>
              {orderedTests.map((row, index) => (
                <tr
                  key={`${index}:${row.name}`}
                  className="border-t border-line align-top"
                  data-testid="test-result"
                  data-status={row.status}
                >
                  <td className="px-2 py-1 font-mono text-xs">{row.name}</td>
                  <td className={`px-2 py-1 text-xs ${testStatusStyle[row.status] ?? ""}`}>{row.status}</td>
                  <td className="px-2 py-1 text-right text-xs tabular-nums">
                    {row.durationMs === null ? "—" : Math.round(row.durationMs)}
                  </td>
                  <td className="max-w-md whitespace-pre-wrap px-2 py-1 text-xs text-muted">{row.message ?? ""}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}

      <TrialLog trialId={trial.id} attempt={trial.attempt} tails={tails} />
    </section>
  );
}
