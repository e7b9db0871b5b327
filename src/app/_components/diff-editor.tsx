"use client";
import dynamic from "next/dynamic";
import type { MonacoDiffProps } from "./monaco-diff";

export type { DiffNavigator } from "./monaco-diff";

/** The Monaco diff editor, loaded only in the browser (Monaco touches `window` and starts web workers). */
export const DiffEditorLazy = dynamic<MonacoDiffProps>(() => import("./monaco-diff"), {
  ssr: false,
  loading: () => <p className="p-4 text-sm text-muted">Loading the editor…</p>,
});
