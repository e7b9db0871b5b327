import type { StudyView } from "../../../shared/study-schemas";
import { DataTable, type Column } from "../../_components/data-table";
import { Fact, focusRing } from "../../_components/ui";
import { formatBytes } from "../../_lib/format";
import { shortId } from "../study-format";

type TestFile = StudyView["testFiles"][number];

const testFileColumns: Column<TestFile>[] = [
  { key: "path", header: "Path", className: "font-mono text-xs", cell: (file) => file.path },
  {
    key: "role",
    header: "Role",
    className: "text-xs",
    cell: (file) => (file.role === "config" ? "runner config" : "test"),
  },
  {
    key: "bytes",
    header: "Size",
    className: "text-xs text-muted",
    // a captured symlink is restored as the link; its bytes are the target's text
    cell: (file) => (file.kind === "symlink" ? "symlink" : formatBytes(file.bytes)),
  },
  {
    key: "sha256",
    header: "SHA-256",
    className: "font-mono text-xs text-muted",
    cellProps: (file) => ({ title: file.sha256 }),
    cell: (file) => `sha256 ${file.sha256.slice(0, 12)}`,
  },
];

/** "node --test · snapshot 3f2a… · environment v1 · 1 captured file": what the folded facts hold, in one line. */
function factsSummary(study: StudyView): string {
  const files = study.testFiles.length;
  const command = study.testCommand.replace(/\s+/g, " ").trim();
  return [
    command.length > 60 ? `${command.slice(0, 59)}…` : command,
    `snapshot ${shortId(study.snapshotId)}`,
    study.environment.version === null ? null : `environment v${study.environment.version}`,
    `${files} captured test file${files === 1 ? "" : "s"}`,
  ]
    .filter(Boolean)
    .join(" · ");
}

/**
 * What the study froze when it was created: task, test command, environment, snapshot, limits and test
 * files. Folded under the results (a `<details>` whose summary line names the test command and snapshot).
 */
export function StudyFactsPanel({ study }: { study: StudyView }) {
  return (
    <section aria-label="Study facts" className="mt-6 rounded-xl border border-line bg-panel">
      <details data-testid="study-facts" className="group">
        <summary className={`cursor-pointer px-5 py-4 text-sm ${focusRing}`}>
          <span className="text-sm font-semibold uppercase tracking-wide text-muted">Study facts</span>
          <span className="ml-3 break-words font-mono text-xs text-muted" data-testid="study-facts-summary">
            {factsSummary(study)}
          </span>
        </summary>
        <div className="border-t border-line px-5 pb-5 pt-4">
          <FactsBody study={study} />
        </div>
      </details>
    </section>
  );
}

function FactsBody({ study }: { study: StudyView }) {
  return (
    <>
      <details className="mb-4 rounded-md border border-line">
        <summary className={`cursor-pointer px-3 py-2 text-sm ${focusRing}`}>Task prompt</summary>
        <pre
          className="max-h-96 overflow-auto whitespace-pre-wrap border-t border-line px-3 py-2 text-sm"
          data-testid="task-prompt"
        >
          {study.taskPrompt}
        </pre>
      </details>
      <dl className="grid gap-4 md:grid-cols-3">
        <Fact label="Test command">
          <code className="font-mono text-xs" data-testid="test-command">
            {study.testCommand}
          </code>
          {study.junitPath ? <span className="block text-xs text-muted">JUnit: {study.junitPath}</span> : null}
        </Fact>
        <Fact label="Environment">
          {study.environment.version === null ? "—" : `v${study.environment.version}`}{" "}
          <span className="font-mono text-xs text-muted" title={study.environment.imageId ?? undefined}>
            image {shortId(study.environment.imageId)}
          </span>
        </Fact>
        <Fact label="Snapshot">
          <span className="font-mono text-xs" title={study.snapshotId ?? undefined}>
            {shortId(study.snapshotId)}
          </span>
        </Fact>
        <Fact label="Concurrency">
          {study.concurrency} trial{study.concurrency === 1 ? "" : "s"} at a time
        </Fact>
        <Fact label="Time limits">
          agent {study.agentTimeoutSec} s · evaluation {study.evalTimeoutSec} s
        </Fact>
        <Fact label="Token budget">
          {study.tokenBudget === null
            ? "the project's, per trial"
            : `${study.tokenBudget.toLocaleString("en-US")} tokens per trial`}
        </Fact>
      </dl>
      <h3 className="mb-1 mt-4 text-xs uppercase tracking-wide text-muted">
        Captured test files ({study.testFiles.length})
      </h3>
      {study.testFiles.length === 0 ? (
        <p className="text-sm text-muted">None: the test command judged the files as the agent left them.</p>
      ) : (
        // a whole test folder can be hundreds of files
        <div className="max-h-96 overflow-y-auto">
          <DataTable
            label="Captured test files"
            density="flush"
            headless
            columns={testFileColumns}
            rows={study.testFiles}
            rowKey={(file) => file.path}
          />
        </div>
      )}
    </>
  );
}
