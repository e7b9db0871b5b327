import type { ReviewChangeKind } from "../../../../shared/review-schemas";

/** How each kind of change is shown: a short mark for the tree and the matrix, a word for screen readers. */
const KINDS: Record<ReviewChangeKind, { mark: string; word: string; style: string }> = {
  added: { mark: "A", word: "added", style: "border-ok-strong/50 text-ok-soft" },
  modified: { mark: "M", word: "modified", style: "border-accent/60 text-accent" },
  deleted: { mark: "D", word: "deleted", style: "border-danger-strong/60 text-danger-soft" },
  mode: { mark: "X", word: "mode changed", style: "border-warn-strong/50 text-warn-soft" },
  symlink: { mark: "L", word: "symlink", style: "border-info-strong/50 text-info-soft" },
  binary: { mark: "B", word: "binary", style: "border-judging-strong/50 text-judging-soft" },
  "type-change": { mark: "T", word: "file ↔ symlink", style: "border-fault-strong/60 text-fault-soft" },
};

export function changeKindWord(kind: ReviewChangeKind): string {
  return KINDS[kind].word;
}

/** A one-letter badge (A, M, D, X mode, L symlink, B binary, T type change) with the word as its title. */
export function ChangeKindBadge({ kind }: { kind: ReviewChangeKind }) {
  const { mark, word, style } = KINDS[kind];
  return (
    <span
      title={word}
      data-kind={kind}
      className={`inline-flex h-5 w-5 shrink-0 items-center justify-center rounded border font-mono text-[11px] ${style}`}
    >
      <span aria-hidden="true">{mark}</span>
      <span className="sr-only">{word}</span>
    </span>
  );
}

/** +12 −3, or nothing when the change has no line counts. */
export function LineCounts({ insertions, deletions }: { insertions: number; deletions: number }) {
  if (insertions === 0 && deletions === 0) return null;
  return (
    <span className="shrink-0 font-mono text-[11px] tabular-nums">
      {insertions > 0 ? <span className="text-ok-soft">+{insertions}</span> : null}
      {insertions > 0 && deletions > 0 ? " " : null}
      {deletions > 0 ? <span className="text-danger-soft">−{deletions}</span> : null}
    </span>
  );
}

/** The legend of the marks, for the tree's and the matrix's captions. */
export function ChangeKindLegend() {
  return (
    <p className="flex flex-wrap gap-x-3 gap-y-1 text-[11px] text-muted">
      {(Object.keys(KINDS) as ReviewChangeKind[]).map((kind) => (
        <span key={kind} className="inline-flex items-center gap-1">
          <ChangeKindBadge kind={kind} /> {KINDS[kind].word}
        </span>
      ))}
    </p>
  );
}
