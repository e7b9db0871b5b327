"use client";
import { loader } from "@monaco-editor/react";
import * as monaco from "monaco-editor";

/**
 * Monaco from our own bundle, never from a CDN (the dashboard must work air-gapped): the editor and its
 * web workers are chunks of the app, served from the app's origin. Import this module only from code
 * that runs in the browser (the diff editor is loaded with `next/dynamic` and `ssr: false`).
 */
declare global {
  interface Window {
    MonacoEnvironment?: { getWorker: (workerId: string, label: string) => Worker };
  }
}

function createWorker(label: string): Worker {
  switch (label) {
    case "json":
      return new Worker(new URL("monaco-editor/language/json/json.worker.js", import.meta.url), { type: "module" });
    case "css":
    case "scss":
    case "less":
      return new Worker(new URL("monaco-editor/language/css/css.worker.js", import.meta.url), { type: "module" });
    case "html":
    case "handlebars":
    case "razor":
      return new Worker(new URL("monaco-editor/language/html/html.worker.js", import.meta.url), { type: "module" });
    default:
      return new Worker(new URL("monaco-editor/editor/editor.worker.js", import.meta.url), { type: "module" });
  }
}

let configured = false;

const NO_LANGUAGE_SERVICE: monaco.typescript.ModeConfiguration = {
  completionItems: false,
  hovers: false,
  documentSymbols: false,
  definitions: false,
  references: false,
  documentHighlights: false,
  rename: false,
  diagnostics: false,
  documentRangeFormattingEdits: false,
  signatureHelp: false,
  onTypeFormattingEdits: false,
  codeActions: false,
  inlayHints: false,
};

/** Points @monaco-editor/react at the bundled Monaco and our workers (once per page load). */
export function configureMonaco(): void {
  if (configured) return;
  configured = true;
  window.MonacoEnvironment = { getWorker: (_workerId, label) => createWorker(label) };
  // A review shows code out of its project, read-only: the TypeScript language service would only add
  // "cannot find module" noise, hovers without types, and a 6.7 MB worker that compiles beside the page
  // (on two cores it competes with drawing the first diff). Colouring is Monaco's own tokenizer either way.
  monaco.typescript.typescriptDefaults.setModeConfiguration(NO_LANGUAGE_SERVICE);
  monaco.typescript.javascriptDefaults.setModeConfiguration(NO_LANGUAGE_SERVICE);
  loader.config({ monaco });
}

/** The options every diff editor of the dashboard shares (the warm-up below uses them too). */
export const baseDiffOptions: monaco.editor.IDiffEditorConstructionOptions = {
  readOnly: true,
  originalEditable: false,
  hideUnchangedRegions: { enabled: true },
  automaticLayout: true,
  scrollBeyondLastLine: false,
  minimap: { enabled: false },
  renderOverviewRuler: true,
  fontSize: 13,
};

let warmedUp = false;

/** A real diff editor was created: Monaco's one-time work is done, no warm-up needed any more. */
export function markMonacoWarm(): void {
  warmedUp = true;
}

/**
 * Does Monaco's one-time work while a page still waits for its data: the first diff editor of a page
 * instantiates Monaco's services, inserts its theme's style sheets (which makes the browser restyle the
 * whole page), measures the font and starts the diff worker. Done on a hidden throwaway editor while
 * the page is small and idle, the real editor later only creates its own widgets. Once per page load,
 * when the main thread is idle (not in the middle of rendering the page's data), and not at all once a
 * real editor exists.
 */
export function warmUpMonaco(): void {
  requestIdleCallback(warmUpNow);
}

function warmUpNow(): void {
  if (warmedUp) return;
  warmedUp = true;
  configureMonaco();
  const host = document.createElement("div");
  host.setAttribute("aria-hidden", "true");
  host.style.cssText = "position:fixed;left:-10000px;top:0;width:480px;height:240px;visibility:hidden";
  document.body.append(host);
  monaco.editor.setTheme("vs-dark");
  const diffEditor = monaco.editor.createDiffEditor(host, baseDiffOptions);
  const original = monaco.editor.createModel("warm-up\n", "plaintext");
  const modified = monaco.editor.createModel("warmed up\n", "plaintext");
  diffEditor.setModel({ original, modified });
  let done = false;
  const dispose = () => {
    if (done) return;
    done = true;
    diffEditor.dispose();
    original.dispose();
    modified.dispose();
    host.remove();
  };
  // the first computed diff means the worker is up; the timer covers a diff that never comes
  diffEditor.onDidUpdateDiff(dispose);
  setTimeout(dispose, 5000);
}
