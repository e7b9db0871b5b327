import Link from "next/link";
import type { TrialView } from "../../../shared/study-schemas";
import { Fact, smallButtonClass } from "../../_components/ui";
import { formatDateTime, formatSeconds, formatVerdict, shortId } from "../study-format";
import { verdictTextStyle } from "../verdict-style";
import { CapturedChangesFact } from "./captured-changes-fact";
import { TestSteeringWarning } from "./test-steering-warning";
import { ContinueInSession } from "./continue-session";
import { TrialCost } from "./cost-panel";
import { testsMissingExplanation, testsMissingText } from "../../../shared/test-integrity";

const count = (value: number) => value.toLocaleString("en-US");

/** Tests passed with the verdict's source, and the integrity flag when tests did not run. */
function TestsPassedFact({ trial }: { trial: TrialView }) {
  return (
    <>
      <span style={verdictTextStyle(trial.verdict)}>{formatVerdict(trial.verdict)}</span>
      {trial.verdict ? <span className="ml-1 text-xs text-muted">({trial.verdict.source})</span> : null}
      {trial.testsMissing ? (
        <span className="mt-0.5 block text-xs font-medium text-warn-ink" data-testid="trial-fact-tests-missing">
          ⚠ {testsMissingText(trial.testsMissing)}
          <span className="block font-normal text-muted">{testsMissingExplanation(trial.testsMissing)}</span>
        </span>
      ) : null}
    </>
  );
}

/** A trial's measurements as a grid of facts; its workspace and result image are actions. */
export function TrialFacts({ studyId, trial }: { studyId: string; trial: TrialView }) {
  return (
    <>
      <TestSteeringWarning items={trial.testSteering} />
      <TrialFactsGrid studyId={studyId} trial={trial} />
    </>
  );
}

function TrialFactsGrid({ studyId, trial }: { studyId: string; trial: TrialView }) {
  const wrap = "break-all";
  return (
    <dl className="mb-4 grid gap-4 md:grid-cols-4">
      <Fact label="Tests passed" className={wrap}>
        <TestsPassedFact trial={trial} />
      </Fact>
      <Fact label="Captured files" className={wrap}>
        <CapturedChangesFact changes={trial.capturedChanges} />
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
        <TrialCost trial={trial} model={trial.manifest?.configuration.model} />
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
      <Fact label="Changes" className={wrap}>
        {trial.diff?.files === 0 ? (
          "No changes"
        ) : trial.workspaceId ? (
          <Link
            href={`/studies/${studyId}/trials/${trial.id}`}
            className={smallButtonClass}
            title={`Workspace ${trial.workspaceId}`}
            data-testid="trial-review-link"
          >
            Review changes
          </Link>
        ) : (
          "—"
        )}
      </Fact>
      <Fact label="Result image" className={wrap}>
        {trial.committedImageId ? (
          <span className="flex flex-wrap items-center gap-1">
            <ContinueInSession studyId={studyId} trialId={trial.id} />
            <span className="font-mono text-xs text-muted" title={trial.committedImageId}>
              {shortId(trial.committedImageId)}
            </span>
          </span>
        ) : (
          "—"
        )}
      </Fact>
    </dl>
  );
}
