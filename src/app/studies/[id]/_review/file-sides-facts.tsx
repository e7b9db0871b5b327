import type { ReviewSide, ReviewSubject } from "../../../../shared/review-schemas";
import { formatBytes } from "../../../_lib/format";
import { focusRing } from "../../../_components/ui";

const REASONS: Record<NonNullable<ReviewSide["reason"]>, string> = {
  binary: "binary content",
  "too-large": "over 1 MiB",
  symlink: "symbolic link",
};

/** Whether the two sides can be shown as text in the diff editor (a missing side counts as empty text). */
export function isTextDiff(left: ReviewSide, right: ReviewSide): boolean {
  const text = (side: ReviewSide) => !side.exists || (side.reason === null && side.text !== null);
  return text(left) && text(right);
}

export interface SideColumn {
  title: string;
  side: ReviewSide;
  /** Where the side's bytes download from, or null when there is no download. */
  download: string | null;
}

/**
 * Instead of an editor: a binary, too large or symlinked file's two sides as facts (exists, size, mode,
 * sha256, link target) with a download of each side that exists.
 */
export function FileSidesFacts({ path, columns }: { path: string; columns: SideColumn[] }) {
  const reasons = [...new Set(columns.map((column) => column.side.reason).filter((reason) => reason !== null))];
  return (
    <div className="p-4" data-testid="file-sides">
      <p className="mb-3 text-sm text-muted">
        {path} is not shown as text
        {reasons.length > 0 ? ` (${reasons.map((reason) => REASONS[reason]).join(", ")})` : ""}. Its sides:
      </p>
      <div className="grid gap-3 sm:grid-cols-2">
        {columns.map((column) => (
          <SideFacts key={column.title} column={column} />
        ))}
      </div>
    </div>
  );
}

function SideFacts({ column: { title, side, download } }: { column: SideColumn }) {
  return (
    <section aria-label={title} className="rounded-md border border-line bg-canvas/60 p-3 text-sm">
      <h3 className="mb-2 text-xs font-semibold uppercase tracking-wide text-muted">{title}</h3>
      {side.exists ? (
        <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-xs">
          <dt className="text-muted">Size</dt>
          <dd className="tabular-nums">
            {side.size === null ? "—" : `${formatBytes(side.size)} (${side.size.toLocaleString("en-US")} bytes)`}
          </dd>
          <dt className="text-muted">Mode</dt>
          <dd className="font-mono">{side.mode ?? "—"}</dd>
          <dt className="text-muted">sha256</dt>
          <dd className="break-all font-mono" data-testid="side-sha256">
            {side.sha256 ?? "—"}
          </dd>
          {side.target !== null ? (
            <>
              <dt className="text-muted">Target</dt>
              <dd className="break-all font-mono">{side.target}</dd>
            </>
          ) : null}
        </dl>
      ) : (
        <p className="text-xs text-muted">Does not exist on this side.</p>
      )}
      {side.exists && download ? (
        <a
          href={download}
          download
          aria-label={`Download ${title}`}
          className={`mt-3 inline-block text-xs text-accent hover:underline ${focusRing}`}
        >
          Download
        </a>
      ) : null}
    </section>
  );
}

/** The download URL of one side of a trial's file (before = the snapshot's bytes, after = the trial's). */
export function sideDownloadUrl(subject: string | ReviewSubject, pathKey: string, side: "before" | "after"): string {
  const base =
    typeof subject === "string" || "trialId" in subject
      ? `/api/trials/${encodeURIComponent(typeof subject === "string" ? subject : subject.trialId)}`
      : `/api/sessions/${encodeURIComponent(subject.sessionId)}`;
  return `${base}/file?pathKey=${encodeURIComponent(pathKey)}&side=${side}`;
}
