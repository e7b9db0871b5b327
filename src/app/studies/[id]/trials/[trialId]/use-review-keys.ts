"use client";
import { useEffect, useRef } from "react";

export interface ReviewKeyActions {
  /** Move the file selection by one (+1 next, −1 previous). */
  moveFile: (delta: 1 | -1) => void;
  /** Jump to the next or previous change of the diff on screen. */
  moveChange: (direction: "next" | "previous") => void;
}

/** Whether a key press belongs to a text field (the filter box, Monaco's find widget …), not to the page. */
function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  const monacoInput = target.closest(".monaco-editor") !== null && target.closest(".find-widget") === null;
  if (monacoInput) return false;
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/**
 * The review's keys: j / k (or Alt+↓ / Alt+↑, or ↓ / ↑ outside the editor) move between files; n / p
 * move between changes. F7 / Shift+F7 inside the editor are Monaco's own.
 */
export function useReviewKeys(actions: ReviewKeyActions, enabled: boolean): void {
  const latest = useRef(actions);
  useEffect(() => {
    latest.current = actions;
  });
  useEffect(() => {
    if (!enabled) return;
    const onKeyDown = (event: KeyboardEvent) => {
      if (event.ctrlKey || event.metaKey || event.defaultPrevented) return;
      const inEditor = event.target instanceof HTMLElement && event.target.closest(".monaco-editor") !== null;
      const { moveFile, moveChange } = latest.current;
      if (event.altKey) {
        if (event.key === "ArrowDown" || event.key === "ArrowUp") {
          event.preventDefault();
          moveFile(event.key === "ArrowDown" ? 1 : -1);
        }
        return;
      }
      if (typingIn(event.target) || event.shiftKey) return;
      const action: (() => void) | undefined = {
        j: () => moveFile(1),
        k: () => moveFile(-1),
        n: () => moveChange("next"),
        p: () => moveChange("previous"),
        ArrowDown: inEditor ? undefined : () => moveFile(1),
        ArrowUp: inEditor ? undefined : () => moveFile(-1),
      }[event.key];
      if (!action) return;
      event.preventDefault();
      action();
    };
    window.addEventListener("keydown", onKeyDown);
    return () => window.removeEventListener("keydown", onKeyDown);
  }, [enabled]);
}
