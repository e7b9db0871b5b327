"use client";
import { useRef, type KeyboardEvent, type ReactNode } from "react";
import { focusRing } from "../../../../_components/ui";

export type ReviewTab = "changes" | "transcript" | "tests" | "comments";

const TABS: { id: ReviewTab; label: string }[] = [
  { id: "changes", label: "Changes" },
  { id: "transcript", label: "Transcript" },
  { id: "tests", label: "Tests" },
  { id: "comments", label: "Comments" },
];

/** Changes, Transcript, Tests, Comments: a tab list (←/→ move between tabs) over the panel of the chosen one. */
export function ReviewTabs({
  tab,
  onTab,
  counts = {},
  children,
}: {
  tab: ReviewTab;
  onTab: (tab: ReviewTab) => void;
  /** A number shown beside a tab's name (the comments' count). */
  counts?: Partial<Record<ReviewTab, number>>;
  children: ReactNode;
}) {
  const list = useRef<HTMLDivElement>(null);
  const onKeyDown = (event: KeyboardEvent<HTMLDivElement>) => {
    if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
    event.preventDefault();
    const index = TABS.findIndex((candidate) => candidate.id === tab);
    const next = TABS[(index + (event.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length]!;
    onTab(next.id);
    list.current?.querySelector<HTMLButtonElement>(`#review-tab-${next.id}`)?.focus();
  };
  return (
    <>
      <div
        ref={list}
        role="tablist"
        aria-label="Review"
        className="flex gap-1 overflow-x-auto border-b border-line px-2 pt-2"
        onKeyDown={onKeyDown}
      >
        {TABS.map(({ id, label }) => (
          <button
            key={id}
            id={`review-tab-${id}`}
            type="button"
            role="tab"
            aria-selected={tab === id}
            aria-controls="review-tabpanel"
            tabIndex={tab === id ? 0 : -1}
            onClick={() => onTab(id)}
            className={`-mb-px shrink-0 whitespace-nowrap rounded-t-md border px-2 py-1.5 text-sm sm:px-3 ${tab === id ? "border-line border-b-panel bg-panel text-ink" : "border-transparent text-muted hover:text-ink"} ${focusRing}`}
          >
            {label}
            {counts[id] ? <span className="ml-1 text-xs text-muted tabular-nums">{counts[id]}</span> : null}
          </button>
        ))}
      </div>
      <div
        id="review-tabpanel"
        role="tabpanel"
        aria-labelledby={`review-tab-${tab}`}
        className={`min-h-0 flex-1 ${tab === "changes" ? "" : "overflow-auto p-4"}`}
      >
        {children}
      </div>
    </>
  );
}
