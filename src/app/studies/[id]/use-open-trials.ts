"use client";
import { useCallback, useEffect, useState } from "react";

/** Whether a key press belongs to a field (Esc there means "leave the field", not "close the panel"). */
function inField(target: EventTarget | null): boolean {
  return (
    target instanceof HTMLElement &&
    (target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName))
  );
}

/** The detail panel holding the focus, if any: its trial id. */
function focusedPanel(): string | null {
  const panel = document.activeElement?.closest<HTMLElement>("[data-testid='trial-detail']");
  return panel?.dataset.trialId ?? null;
}

/**
 * The trials whose detail panels are open, in the order they were opened; several can be open at once.
 * Esc closes the panel holding the focus, else the last one opened, and puts the focus back on its row.
 */
export function useOpenTrials() {
  const [openIds, setOpenIds] = useState<readonly string[]>([]);
  const toggle = useCallback(
    (trialId: string) =>
      setOpenIds((current) =>
        current.includes(trialId) ? current.filter((id) => id !== trialId) : [...current, trialId],
      ),
    [],
  );
  const close = useCallback((trialId: string) => {
    setOpenIds((current) => current.filter((id) => id !== trialId));
    document.querySelector<HTMLElement>(`[data-testid='trial-row'][data-trial-id='${CSS.escape(trialId)}']`)?.focus();
  }, []);

  useEffect(() => {
    if (openIds.length === 0) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.key !== "Escape" || event.defaultPrevented || inField(event.target)) return;
      // a modal dialog owns Esc (React listens on the document too, so stopPropagation cannot keep it from us)
      if (document.querySelector("dialog[open]")) return;
      const focused = focusedPanel();
      const target = focused && openIds.includes(focused) ? focused : openIds[openIds.length - 1];
      if (!target) return;
      event.preventDefault();
      close(target);
    };
    document.addEventListener("keydown", onKeyDown);
    return () => document.removeEventListener("keydown", onKeyDown);
  }, [openIds, close]);

  return { openIds, toggle, close };
}
