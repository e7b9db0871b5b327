import { z } from "zod";
import { describeRuntime } from "../shared/runtime-labels";
import {
  dependencyKindSchema,
  dependencyStepSchema,
  manifestHashSchema,
  runtimeReportSchema,
  type DependencyStatusView,
  type DependencyStep,
} from "../shared/dependency-schemas";

/**
 * What `dependencies show|set|install --json` print about a project's dependency step
 * (docs/automation.md), and the dashboard's status turned into it field by field.
 */
export const dependencyStatusOutputSchema = z.object({
  /** The step that runs: the edited one, else the detected one (null: nothing detected, nothing set). */
  step: dependencyStepSchema.nullable(),
  /** What the project's manifests suggest. */
  detected: dependencyStepSchema.nullable(),
  /** Whether `step` was set by hand (`dependencies set`) rather than detected. */
  edited: z.boolean(),
  /** What the active environment version carries (null: no dependencies installed). */
  installed: z
    .object({
      version: z.int().positive(),
      kind: dependencyKindSchema,
      command: z.string(),
      outputs: z.array(z.string()),
      /** sha256 of each manifest as the step saw it (null: the file was absent). */
      manifests: z.array(manifestHashSchema),
      /** The runtimes the step found or installed (Node.js from .nvmrc …); empty for versions made before that. */
      runtimeReport: z.array(runtimeReportSchema),
    })
    .nullable(),
  /** Manifests that differ from what the installed dependencies were made from. */
  changes: z.array(z.object({ path: z.string(), change: z.enum(["changed", "added", "removed"]) })),
  /** One sentence when the dependencies need installing (again), else null. */
  warning: z.string().nullable(),
  /** The detected step's manifests declare no package: nothing to install, no warning. */
  nothingToInstall: z.boolean(),
});
export type DependencyStatusOutput = z.infer<typeof dependencyStatusOutputSchema>;

const stepOutput = (step: DependencyStep | null): DependencyStep | null =>
  step && { kind: step.kind, command: step.command, outputs: [...step.outputs], manifests: [...step.manifests] };

export function dependencyStatusOutput(status: DependencyStatusView): DependencyStatusOutput {
  const { installed } = status;
  return {
    step: stepOutput(status.step),
    detected: stepOutput(status.detected),
    edited: status.edited,
    installed: installed && {
      version: installed.version,
      kind: installed.kind,
      command: installed.command,
      outputs: [...installed.outputs],
      manifests: installed.manifests.map((m) => ({ path: m.path, sha256: m.sha256 })),
      runtimeReport: (installed.runtimeReport ?? []).map((report) => ({ ...report })),
    },
    changes: status.changes.map((c) => ({ path: c.path, change: c.change })),
    warning: status.warning,
    nothingToInstall: status.nothingToInstall,
  };
}

/** The status as a person reads it (`dependencies show`, `dependencies set`). */
export function dependencyStatusText(projectName: string, status: DependencyStatusOutput): string {
  const lines: string[] = [];
  const { step, installed } = status;
  if (!step)
    lines.push(
      `${projectName}: no dependency step (no manifest such as package-lock.json or requirements.txt at the project root). Set one with invariant-web dependencies set --command "..." --manifests FILE.`,
    );
  else {
    lines.push(
      `${projectName}: dependency step (${status.edited ? "edited; the detected one is not used" : "detected"})`,
    );
    lines.push(`  kind:      ${step.kind}`);
    lines.push(`  command:   ${step.command}`);
    lines.push(`  outputs:   ${step.outputs.join(", ") || "(none)"}`);
    lines.push(`  manifests: ${step.manifests.join(", ")}`);
  }
  if (status.edited && status.detected)
    lines.push(`  detected:  ${status.detected.kind}: ${status.detected.command} (dependencies set --detected)`);
  lines.push(
    installed
      ? `installed in environment v${installed.version}: ${installed.kind}: ${installed.command} → ${installed.outputs.join(", ") || "(no folders)"}`
      : status.nothingToInstall
        ? "installed: nothing to install (the manifests declare no packages)"
        : "installed: nothing in the active environment version",
  );
  for (const report of installed?.runtimeReport ?? []) lines.push(`  runtime:   ${describeRuntime(report)}`);
  for (const change of status.changes) lines.push(`  ${change.path}: ${change.change} since the install`);
  if (status.warning)
    lines.push(
      `warning: ${status.warning}`,
      `  from here: invariant-web dependencies install --project ${projectName}`,
    );
  return lines.join("\n");
}
