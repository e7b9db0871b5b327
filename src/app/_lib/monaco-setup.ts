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
    case "typescript":
    case "javascript":
      return new Worker(new URL("monaco-editor/language/typescript/ts.worker.js", import.meta.url), {
        type: "module",
      });
    default:
      return new Worker(new URL("monaco-editor/editor/editor.worker.js", import.meta.url), { type: "module" });
  }
}

let configured = false;

/** Points @monaco-editor/react at the bundled Monaco and our workers (once per page load). */
export function configureMonaco(): void {
  if (configured) return;
  configured = true;
  window.MonacoEnvironment = { getWorker: (_workerId, label) => createWorker(label) };
  // a review shows code out of its project: "cannot find module" squiggles would only be noise
  const diagnostics = { noSemanticValidation: true, noSyntaxValidation: true, noSuggestionDiagnostics: true };
  monaco.typescript.typescriptDefaults.setDiagnosticsOptions(diagnostics);
  monaco.typescript.javascriptDefaults.setDiagnosticsOptions(diagnostics);
  loader.config({ monaco });
}
