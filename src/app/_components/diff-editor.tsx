"use client";
import dynamic from "next/dynamic";
import type { MonacoDiffProps } from "./monaco-diff";

export type { DiffNavigator } from "./monaco-diff";

/** The Monaco diff editor, loaded only in the browser (Monaco touches `window` and starts web workers). */
export const DiffEditorLazy = dynamic<MonacoDiffProps>(() => import("./monaco-diff"), {
  ssr: false,
  loading: () => <p className="p-4 text-sm text-muted">Loading the editor…</p>,
});

/**
 * Starts fetching the editor's code now, while the page loads its data, and then does Monaco's one-time
 * setup on a hidden editor (see warmUpMonaco), so the first diff waits for neither after the file list
 * arrives (the bundler serves both imports from one chunk).
 */
export function preloadDiffEditor(): void {
  void import("./monaco-diff").then((module) => module.warmUpMonaco());
}
