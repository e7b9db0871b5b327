"use client";
import { DiffEditor, type DiffOnMount } from "@monaco-editor/react";
import { useLayoutEffect, useMemo, useRef } from "react";
import type { editor } from "monaco-editor";
import { baseDiffOptions, configureMonaco, markMonacoWarm } from "../_lib/monaco-setup";

configureMonaco();

export { warmUpMonaco } from "../_lib/monaco-setup";

/** Moves between the changes ("hunks") of the diff on screen. */
export interface DiffNavigator {
  goToChange: (direction: "next" | "previous") => void;
  focus: () => void;
}

export interface MonacoDiffProps {
  original: string;
  modified: string;
  language: string;
  sideBySide: boolean;
  wordWrap: boolean;
  /** What the two sides are, for screen readers (e.g. "snapshot", "trial 1.1"). */
  originalLabel: string;
  modifiedLabel: string;
  onNavigator?: (navigator: DiffNavigator | null) => void;
  /** Hears the widget once mounted (null when it goes): the review's comment layer decorates its modified side. */
  onEditor?: (diffEditor: editor.IStandaloneDiffEditor | null) => void;
}

/**
 * Monaco's read-only diff editor, dark, with unchanged regions folded. Browser only: load it through
 * `DiffEditorLazy` (next/dynamic, no SSR). The models are ours to dispose: the wrapper would dispose
 * them before the widget, which Monaco reports as an error, so we detach them first.
 */
export default function MonacoDiff({
  original,
  modified,
  language,
  sideBySide,
  wordWrap,
  originalLabel,
  modifiedLabel,
  onNavigator,
  onEditor,
}: MonacoDiffProps) {
  const editorRef = useRef<editor.IStandaloneDiffEditor | null>(null);
  const onNavigatorRef = useRef(onNavigator);
  const onEditorRef = useRef(onEditor);
  useLayoutEffect(() => {
    onNavigatorRef.current = onNavigator;
    onEditorRef.current = onEditor;
  });
  const options = useMemo<editor.IDiffEditorConstructionOptions>(
    () => ({
      ...baseDiffOptions,
      renderSideBySide: sideBySide,
      wordWrap: wordWrap ? "on" : "off",
      diffWordWrap: wordWrap ? "on" : "off",
      ariaLabel: `Diff: ${originalLabel} against ${modifiedLabel}`,
      originalAriaLabel: originalLabel,
      modifiedAriaLabel: modifiedLabel,
    }),
    [sideBySide, wordWrap, originalLabel, modifiedLabel],
  );
  const onMount: DiffOnMount = (diffEditor) => {
    markMonacoWarm();
    editorRef.current = diffEditor;
    onNavigatorRef.current?.({
      goToChange: (direction) => diffEditor.goToDiff(direction),
      focus: () => diffEditor.getModifiedEditor().focus(),
    });
    onEditorRef.current?.(diffEditor);
  };
  // runs before the wrapper's own (passive) cleanup: detach the models, then dispose them
  useLayoutEffect(
    () => () => {
      const diffEditor = editorRef.current;
      editorRef.current = null;
      onNavigatorRef.current?.(null);
      onEditorRef.current?.(null);
      if (!diffEditor) return;
      const models = diffEditor.getModel();
      diffEditor.setModel(null);
      models?.original.dispose();
      models?.modified.dispose();
    },
    [],
  );
  return (
    <DiffEditor
      original={original}
      modified={modified}
      language={language}
      theme="vs-dark"
      options={options}
      keepCurrentOriginalModel
      keepCurrentModifiedModel
      onMount={onMount}
      loading={<p className="p-4 text-sm text-muted">Loading the editor…</p>}
    />
  );
}
