import type { TrialView } from "../../../shared/study-schemas";
import { Fact } from "../../_components/ui";
import { formatDateTime, formatSeconds, formatVerdict, shortId } from "../study-format";

const count = (value: number) => value.toLocaleString("en-US");

/** A trial's outcome and measurements as a grid of facts. */
export function TrialFacts({ trial }: { trial: TrialView }) {
  const wrap = "break-all";
  return (
    <dl className="mb-4 grid gap-4 md:grid-cols-4">
      <Fact label="Tests passed" className={wrap}>
        {formatVerdict(trial.verdict)}
        {trial.verdict ? <span className="ml-1 text-xs text-muted">({trial.verdict.source})</span> : null}
      </Fact>
      <Fact label="Exit code" className={wrap}>
        {trial.exitCode ?? "—"}
      </Fact>
      <Fact label="Diff" className={wrap}>
        {trial.diff
          ? `${trial.diff.files} file${trial.diff.files === 1 ? "" : "s"}, +${trial.diff.insertions} −${trial.diff.deletions}`
          : "—"}
      </Fact>
      <Fact label="Seconds" className={wrap}>
        agent {formatSeconds(trial.agentSeconds)} · eval {formatSeconds(trial.evalSeconds)}
      </Fact>
      <Fact label="Tokens" className={wrap}>
        {count(trial.tokens.total)}{" "}
        <span className="text-xs text-muted">
          (in {count(trial.tokens.input)}, cached {count(trial.tokens.cachedInput)}, out {count(trial.tokens.output)},
          reasoning {count(trial.tokens.reasoning)})
        </span>
      </Fact>
      <Fact label="Thread" className={wrap}>
        <span className="font-mono text-xs">{trial.threadId ?? "—"}</span>
      </Fact>
      <Fact label="Harness version" className={wrap}>
        {trial.harnessVersion ?? "—"}
      </Fact>
      <Fact label="Attempt" className={wrap}>
        {trial.attempt} · {trial.commandsRun} command{trial.commandsRun === 1 ? "" : "s"}
      </Fact>
      <Fact label="Started" className={wrap}>
        {formatDateTime(trial.startedAt)}
      </Fact>
      <Fact label="Finished" className={wrap}>
        {formatDateTime(trial.finishedAt)}
      </Fact>
      <Fact label="Result image" className={wrap}>
        <span className="font-mono text-xs">{shortId(trial.committedImageId)}</span>
      </Fact>
      <Fact label="Workspace" className={wrap}>
        <span className="font-mono text-xs">{trial.workspaceId ?? "—"}</span>
      </Fact>
    </dl>
  );
}
