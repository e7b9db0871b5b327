"use client";
import { useState } from "react";
import { focusRing } from "../../../_components/ui";

export interface DiffView {
  sideBySide: boolean;
  wordWrap: boolean;
}

const KEY = "invariant.diff-view";

function readSaved(): DiffView {
  try {
    const saved = JSON.parse(window.localStorage.getItem(KEY) ?? "null") as Partial<DiffView> | null;
    return { sideBySide: saved?.sideBySide ?? true, wordWrap: saved?.wordWrap ?? false };
  } catch {
    return { sideBySide: true, wordWrap: false };
  }
}

/** Side-by-side or inline, wrapped or not: remembered in this browser for every diff. */
export function useDiffView(): [DiffView, (change: Partial<DiffView>) => void] {
  const [view, setView] = useState<DiffView>(() =>
    typeof window === "undefined" ? { sideBySide: true, wordWrap: false } : readSaved(),
  );
  const update = (change: Partial<DiffView>) =>
    setView((current) => {
      const next = { ...current, ...change };
      try {
        window.localStorage.setItem(KEY, JSON.stringify(next));
      } catch {
        // private mode: the choice lasts for this page only
      }
      return next;
    });
  return [view, update];
}

const toggleClass = `inline-flex cursor-pointer items-center gap-1.5 rounded border border-line px-2 py-1 text-xs hover:border-muted has-[:checked]:border-accent/60 has-[:checked]:text-accent has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus`;

/** The "Inline" and "Wrap" checkboxes of a diff. */
export function DiffToggles({ view, onChange }: { view: DiffView; onChange: (change: Partial<DiffView>) => void }) {
  return (
    <div className="flex items-center gap-2" role="group" aria-label="Diff view">
      <label className={toggleClass} title="Show both sides in one column (otherwise side by side)">
        <input
          type="checkbox"
          className="accent-accent"
          checked={!view.sideBySide}
          onChange={(event) => onChange({ sideBySide: !event.target.checked })}
        />
        Inline
      </label>
      <label className={toggleClass} title="Wrap long lines">
        <input
          type="checkbox"
          className="accent-accent"
          checked={view.wordWrap}
          onChange={(event) => onChange({ wordWrap: event.target.checked })}
        />
        Wrap
      </label>
    </div>
  );
}

export const toolbarButtonClass = `rounded border border-line px-2 py-1 text-xs hover:border-muted disabled:opacity-40 ${focusRing}`;
