"use client";
import { useState } from "react";
import { smallButtonClass } from "./ui";

/** Copies `text` to the clipboard and says so (or says to select it by hand where the clipboard is refused). */
export function CopyButton({ text, label = "Copy" }: { text: string; label?: string }) {
  const [state, setState] = useState<"idle" | "copied" | "refused">("idle");
  return (
    <button
      type="button"
      className={smallButtonClass}
      onClick={() =>
        void navigator.clipboard.writeText(text).then(
          () => setState("copied"),
          () => setState("refused"),
        )
      }
    >
      {state === "copied" ? "Copied" : state === "refused" ? "Select and copy it by hand" : label}
    </button>
  );
}
