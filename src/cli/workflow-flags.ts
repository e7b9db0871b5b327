import path from "node:path";
import { wholeNumber } from "./usage-error";

/**
 * Flags of the workflow commands (`project`, `study`, `trial`, `apply --trial`): --file (study create),
 * --last (the most recent study or project), --trial (repeatable: apply, study choose/retry), --timeout
 * (study wait/follow; null: no limit), --note and --clear (study choose), --set key=value (repeatable:
 * project settings), --name (project add), --tail (trial log), --repeats (study repeat), --kind,
 * --outputs, --manifests and --detected (dependencies set).
 */
export interface WorkflowFlags {
  file: string | null;
  last: boolean;
  trials: string[];
  /** `branch create --push REMOTE`: push the new branch to this remote of the repository (null: no push). */
  push: string | null;
  timeoutSec: number | null;
  note: string | null;
  clear: boolean;
  set: string[];
  name: string | null;
  tailBytes: number | null;
  /** `study repeat`: repeats to add per configuration (null: 1). */
  repeats: number | null;
  /** `trial comment` (--body, --path, --lines A-B) and `trial follow-up` (--feedback, --wait). */
  feedback: { body: string | null; path: string | null; lines: string | null; feedback: string | null; wait: boolean };
  /** `dependencies set`: the step's kind, its comma-separated output folders and manifests (null: keep). */
  dependencyStep: { kind: string | null; outputs: string | null; manifests: string | null; detected: boolean };
}

/** The workflow commands' flags (project, study, trial, apply --trial). */
export function workflowFlags(values: {
  file?: string | undefined;
  last: boolean;
  trial?: string[] | undefined;
  push?: string | undefined;
  timeout?: string | undefined;
  note?: string | undefined;
  clear: boolean;
  set?: string[] | undefined;
  name?: string | undefined;
  tail?: string | undefined;
  repeats?: string | undefined;
  body?: string | undefined;
  path?: string | undefined;
  lines?: string | undefined;
  feedback?: string | undefined;
  wait?: boolean | undefined;
  kind?: string | undefined;
  outputs?: string | undefined;
  manifests?: string | undefined;
  detected: boolean;
}): WorkflowFlags {
  return {
    file: values.file === undefined ? null : path.resolve(values.file),
    last: values.last,
    trials: values.trial ?? [],
    push: values.push ?? null,
    timeoutSec:
      values.timeout === undefined ? null : wholeNumber(values.timeout, "--timeout must be a whole number of seconds"),
    note: values.note ?? null,
    clear: values.clear,
    set: values.set ?? [],
    name: values.name ?? null,
    tailBytes: values.tail === undefined ? null : wholeNumber(values.tail, "--tail must be a whole number of bytes"),
    repeats: values.repeats === undefined ? null : wholeNumber(values.repeats, "--repeats must be a whole number"),
    feedback: {
      body: values.body ?? null,
      path: values.path ?? null,
      lines: values.lines ?? null,
      feedback: values.feedback ?? null,
      wait: values.wait ?? false,
    },
    dependencyStep: {
      kind: values.kind ?? null,
      outputs: values.outputs ?? null,
      manifests: values.manifests ?? null,
      detected: values.detected,
    },
  };
}
