"use client";
import Link from "next/link";
import type { ReactNode } from "react";
import type { StudyView } from "../../../shared/study-schemas";
import { LiveIndicator } from "../../_components/live-indicator";
import { dangerButtonClass, Panel } from "../../_components/ui";
import { formatBytes } from "../../_lib/format";
import { StudyStateBadge } from "../state-badge";
import { DeleteStudy } from "./delete-study";
import { focusRing, formatDateTime, shortId } from "../study-format";

function Fact({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div>
      <dt className="text-xs uppercase tracking-wide text-muted">{label}</dt>
      <dd className="mt-0.5 text-sm">{children}</dd>
    </div>
  );
}

/** Title, state, project, times, Stop or Delete; then what was frozen: task, test command, environment, snapshot, test files. */
export function StudyHeader({
  study,
  canStop,
  canDelete,
  stopping,
  onStop,
  stopError,
}: {
  study: StudyView;
  canStop: boolean;
  canDelete: boolean;
  stopping: boolean;
  onStop: () => void;
  stopError: string | null;
}) {
  return (
    <>
      <div className="mb-6 flex flex-wrap items-start justify-between gap-4">
        <div>
          <div className="flex flex-wrap items-center gap-3">
            <h1 className="text-2xl font-semibold tracking-tight">{study.title}</h1>
            <span data-testid="study-state" data-state={study.state}>
              <StudyStateBadge state={study.state} />
            </span>
            <LiveIndicator />
          </div>
          <p className="mt-1 text-sm text-muted">
            <Link href={`/projects/${study.projectId}`} className={`text-accent hover:underline ${focusRing}`}>
              {study.projectName}
            </Link>
            {" · "}created {formatDateTime(study.createdAt)} by {study.createdBy}
            {study.startedAt ? ` · started ${formatDateTime(study.startedAt)}` : ""}
            {study.finishedAt ? ` · finished ${formatDateTime(study.finishedAt)}` : ""}
          </p>
        </div>
        <div className="ml-auto flex flex-col items-end gap-2">
          <ReportLinks studyId={study.id} />
          {canStop ? (
            <button type="button" className={`${dangerButtonClass} ${focusRing}`} onClick={onStop} disabled={stopping}>
              {stopping ? "Stopping…" : "Stop study"}
            </button>
          ) : null}
          {canDelete ? <DeleteStudy study={study} /> : null}
          {stopError ? (
            <p role="alert" className="text-sm text-red-400">
              {stopError}
            </p>
          ) : null}
        </div>
      </div>

      <Panel title="Study" className="mb-6">
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
        </dl>
        <h3 className="mb-1 mt-4 text-xs uppercase tracking-wide text-muted">
          Captured test files ({study.testFiles.length})
        </h3>
        {study.testFiles.length === 0 ? (
          <p className="text-sm text-muted">None: the test command judged the files as the agent left them.</p>
        ) : (
          <table className="w-full text-left text-sm" aria-label="Captured test files">
            <tbody>
              {study.testFiles.map((file) => (
                <tr key={file.path} className="border-t border-line">
                  <td className="py-1 font-mono text-xs">{file.path}</td>
                  <td className="text-xs text-muted">{formatBytes(file.bytes)}</td>
                  <td className="font-mono text-xs text-muted" title={file.sha256}>
                    sha256 {file.sha256.slice(0, 12)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </>
  );
}

function ReportLinks({ studyId }: { studyId: string }) {
  const link = `rounded border border-line px-2 py-1 text-xs hover:border-muted ${focusRing}`;
  return (
    <div className="flex items-center gap-2 text-xs text-muted" role="group" aria-label="Reports">
      <span>Report:</span>
      <a href={`/api/studies/${studyId}/report.md`} download className={link}>
        Markdown
      </a>
      <a href={`/api/studies/${studyId}/report.json`} download className={link}>
        JSON
      </a>
      <a href={`/api/studies/${studyId}/report.csv`} download className={link}>
        CSV
      </a>
    </div>
  );
}
