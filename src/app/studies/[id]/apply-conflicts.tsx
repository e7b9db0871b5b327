"use client";
import type {
  ConflictView,
  CurrentFileView,
  FileStateView,
  PlanAction,
  PlanStepView,
} from "../../../shared/snapshot-schemas";
import { DataTable, type Column } from "../../_components/data-table";
import { focusRing } from "../../_components/ui";
import { formatBytes } from "../../_lib/format";

/** How each conflict reason reads in a table (docs/snapshots-and-apply.md lists them). */
const REASON_LABEL: Record<string, string> = {
  "unsafe-path": "unsafe path",
  "excluded-path": "excluded path",
  "symlink-in-path": "symlink in the path",
  "not-a-directory": "parent is a file",
  exists: "already exists",
  missing: "deleted",
  changed: "changed",
  "mode-changed": "mode changed",
  "type-changed": "type changed",
  "symlink-escapes": "symlink leaves the project",
  "plan-changed": "plan changed",
  "workspace-changed": "workspace changed",
};

export function reasonLabel(reason: string): string {
  return REASON_LABEL[reason] ?? reason;
}

/** `file · 644 · 1.9 KiB · 1a2b3c4d`: a file's state in a few words. */
export function describeState(state: FileStateView | null): string {
  if (!state) return "absent";
  const kind = state.type === "symlink" ? `symlink → ${state.target?.path ?? "?"}` : "file";
  return [kind, state.mode.slice(-3), formatBytes(state.size), state.sha256.slice(0, 8)].join(" · ");
}

/** What is at the path in the project now, as the conflict found it. */
export function describeCurrent(current: CurrentFileView | undefined): string {
  if (!current) return "not read";
  if (!current.exists) return "absent";
  const parts: string[] = [current.type ?? "something"];
  if (current.mode) parts.push(current.mode.slice(-3));
  if (current.size !== null) parts.push(formatBytes(current.size));
  if (current.sha256) parts.push(current.sha256.slice(0, 8));
  return parts.join(" · ");
}

export const actionStyle: Record<PlanAction, string> = {
  create: "text-ok-soft",
  modify: "text-accent",
  delete: "text-danger-soft",
};

/** The path of a conflict; the plan-wide ones (plan-changed) have none. */
export function conflictPath(conflict: Pick<ConflictView, "path">): string {
  return conflict.path === "" ? "(the whole plan)" : conflict.path;
}

function conflictColumns(steps: readonly PlanStepView[] | null): Column<ConflictView>[] {
  const expected = (conflict: ConflictView) => steps?.find((step) => step.path === conflict.path)?.before ?? null;
  const columns: Column<ConflictView>[] = [
    {
      key: "path",
      header: "File",
      className: "min-w-32 font-mono text-xs [overflow-wrap:anywhere]",
      cell: (conflict) => conflictPath(conflict),
      cellProps: () => ({ "data-testid": "conflict-path" }),
    },
    { key: "reason", header: "Reason", className: "whitespace-nowrap", cell: (c) => reasonLabel(c.reason) },
    { key: "message", header: "What happened", className: "text-xs text-muted", cell: (c) => c.message },
  ];
  if (steps)
    columns.push({
      key: "expected",
      header: "Snapshot had",
      className: "font-mono text-xs",
      cell: (conflict) => (conflict.path === "" ? "—" : describeState(expected(conflict))),
    });
  columns.push({
    key: "current",
    header: "Project has now",
    className: "font-mono text-xs",
    cell: (conflict) => describeCurrent(conflict.current),
  });
  return columns;
}

/**
 * The conflicts that refuse a plan (or an undo): file, reason, message, and the file's state in the project
 * now, beside what the plan expected when `steps` are given.
 */
export function ConflictsTable({
  conflicts,
  steps = null,
  label = "Conflicts",
}: {
  conflicts: readonly ConflictView[];
  steps?: readonly PlanStepView[] | null;
  label?: string;
}) {
  return (
    <DataTable
      label={label}
      density="dense"
      className="min-w-[36rem]"
      wrapperClassName="mt-2 max-h-64 overflow-auto rounded-md border border-line bg-canvas"
      stickyHeader
      columns={conflictColumns(steps)}
      rows={conflicts}
      rowKey={(conflict, index) => `${conflict.path}:${conflict.reason}:${index}`}
    />
  );
}

/** The trial's changes as one unified patch, to apply by hand (`git apply`) when the plan is refused. */
/** What is applied: a finished trial's workspace, or a private-copy session's. */
export type ApplySource = { trialId: string } | { sessionId: string; workspaceId: string };

/** Where the source's changes download as one git patch. */
export function patchHref(source: ApplySource): string {
  return "trialId" in source
    ? `/api/trials/${encodeURIComponent(source.trialId)}/patch`
    : `/api/sessions/${encodeURIComponent(source.sessionId)}/patch`;
}

export function PatchDownload({ source }: { source: ApplySource }) {
  return (
    <a
      href={patchHref(source)}
      download
      className={`rounded border border-line px-2 py-1 text-xs text-ink hover:border-muted ${focusRing}`}
    >
      Download the patch
    </a>
  );
}
