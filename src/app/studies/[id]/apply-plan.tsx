"use client";
import type { ApplyPreviewView, DiffTotalsView, PlanStepView } from "../../../shared/snapshot-schemas";
import { DataTable, type Column } from "../../_components/data-table";
import { formatBytes } from "../../_lib/format";
import { actionStyle } from "./apply-conflicts";

function plural(count: number, word: string): string {
  return `${count.toLocaleString("en")} ${word}${count === 1 ? "" : "s"}`;
}

/** "3 files: 1 created, 2 modified, 0 deleted · +40 −12 lines". */
export function describeTotals(totals: DiffTotalsView): string {
  const counts = `${plural(totals.files, "file")}: ${totals.added} created, ${totals.modified} modified, ${totals.deleted} deleted`;
  const extra: string[] = [];
  if (totals.modeChanges > 0) extra.push(plural(totals.modeChanges, "mode change"));
  if (totals.binary > 0) extra.push(`${totals.binary} binary`);
  if (totals.insertions + totals.deletions > 0) extra.push(`+${totals.insertions} −${totals.deletions} lines`);
  return [counts, ...extra].join(" · ");
}

/** What a step does to its file, in a few words: sizes, mode, link target. */
function stepDetail(step: PlanStepView): string {
  const { before, after } = step;
  const size = (state: NonNullable<PlanStepView["after"]>) =>
    state.type === "symlink" ? `symlink → ${state.target?.path ?? "?"}` : formatBytes(state.size);
  if (step.action === "create") return after ? `new, ${size(after)}` : "new";
  if (step.action === "delete") return before ? `was ${size(before)}` : "removed";
  if (!before || !after) return "";
  const parts = [`${size(before)} → ${size(after)}`];
  if (before.mode !== after.mode) parts.push(`mode ${before.mode.slice(-3)} → ${after.mode.slice(-3)}`);
  return parts.join(" · ");
}

const stepColumns: Column<PlanStepView>[] = [
  {
    key: "action",
    header: "Action",
    className: (step) => `whitespace-nowrap font-medium ${actionStyle[step.action]}`,
    cell: (step) => step.action,
  },
  {
    key: "path",
    header: "Path",
    className: "min-w-32 font-mono text-xs [overflow-wrap:anywhere]",
    cell: (step) => step.path,
  },
  { key: "detail", header: "Change", className: "whitespace-nowrap text-xs text-muted", cell: stepDetail },
];

/** The plan: totals, then one row per step (action and path). */
export function PlanSteps({ preview }: { preview: ApplyPreviewView }) {
  return (
    <>
      <p className="text-sm" data-testid="plan-totals">
        {describeTotals(preview.totals)}
      </p>
      {preview.steps.length === 0 ? (
        <p className="mt-2 text-sm text-muted">The trial changed no files: there is nothing to apply.</p>
      ) : (
        <DataTable
          label="Plan"
          density="dense"
          wrapperClassName="mt-2 max-h-64 overflow-auto rounded-md border border-line bg-canvas"
          stickyHeader
          columns={stepColumns}
          rows={preview.steps}
          rowKey={(step, index) => `${step.path}:${index}`}
          rowProps={(step) => ({ "data-testid": "plan-step", "data-action": step.action })}
        />
      )}
    </>
  );
}
