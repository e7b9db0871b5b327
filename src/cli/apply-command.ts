import os from "node:os";
import type { ApplyPreviewView, ApplyRecordView } from "../shared/snapshot-schemas";
import { applyPreviewOutput, applyRecordOutput } from "./cli-views";
import { type CliConfig } from "./config";
import { UsageError } from "./usage-error";
import { openDatabaseOffline, runningLauncher } from "./database-access";
import { runWorkflow } from "./workflow-cli";

/**
 * `invariant-web apply WORKSPACE|--trial TRIAL [--yes] [--json]`: shows the plan that applies a
 * workspace's (or a finished trial's) changes to its project, with its conflicts; with --yes, applies
 * that plan (by its hash).
 *
 * It reaches the database by the CLI's one rule (database-access.ts): through the running dashboard
 * (recorded as "admin"), else directly under the data-dir lock (recorded as "cli:<user>").
 */
export interface ApplyApi {
  preview(workspaceId: string): Promise<ApplyPreviewView>;
  run(workspaceId: string, planHash: string): Promise<ApplyRecordView>;
  previewTrial(trialId: string): Promise<ApplyPreviewView>;
  runTrial(trialId: string, planHash: string): Promise<ApplyRecordView>;
  close(): Promise<void>;
}

export interface ApplyCommandOptions {
  config: CliConfig;
  root: string;
  out?: (text: string) => void;
  err?: (text: string) => void;
  /** How to reach a running dashboard (tests pass their own). */
  connect?: (dataDir: string) => Promise<ApplyApi>;
}

async function connectToDashboard(dataDir: string): Promise<ApplyApi> {
  const { connectDashboard } = await import("./dashboard-client");
  const { api } = connectDashboard(dataDir);
  return {
    preview: (workspaceId) => api.applies.preview.query({ workspaceId }),
    run: (workspaceId, planHash) => api.applies.run.mutate({ workspaceId, planHash }),
    previewTrial: (trialId) => api.applies.previewTrial.query({ trialId }),
    runTrial: (trialId, planHash) => api.applies.runTrial.mutate({ trialId, planHash }),
    close: () => Promise.resolve(),
  };
}

/** Opens the database directly; only when no launcher runs (the caller checked). */
async function openDirectly(options: { dataDir: string; root: string }): Promise<ApplyApi> {
  const offline = await openDatabaseOffline({ ...options, whatFor: "no workspace or trial can exist there" });
  const [{ createApplyService }, { createApplyQueries }, { createProjectQueries }] = await Promise.all([
    import("../server/web/apply/apply-service"),
    import("../server/web/apply/apply.queries"),
    import("../server/web/projects/projects.queries"),
  ]);
  const { db } = offline;
  const apply = createApplyService({
    dataDir: options.dataDir,
    projects: createProjectQueries(db),
    records: createApplyQueries(db),
  });
  const appliedBy = `cli:${os.userInfo().username}`;
  return {
    preview: (workspaceId) => apply.preview({ workspaceId }),
    run: (workspaceId, planHash) => apply.run({ workspaceId, planHash, appliedBy }),
    previewTrial: (trialId) => apply.previewTrial({ trialId }),
    runTrial: (trialId, planHash) => apply.runTrial({ trialId, planHash, appliedBy }),
    close: () => offline.close(),
  };
}

function describePreview(preview: ApplyPreviewView): string {
  const lines = [
    `Plan ${preview.planHash} for workspace ${preview.workspaceId}`,
    `(project ${preview.projectId}, snapshot ${preview.snapshotId.slice(0, 12)}):`,
  ];
  if (preview.steps.length === 0) lines.push("  nothing to apply: the workspace has no changes.");
  for (const step of preview.steps) lines.push(`  ${step.action.padEnd(6)} ${JSON.stringify(step.path).slice(1, -1)}`);
  const { totals } = preview;
  lines.push(
    `${totals.files} change(s): ${totals.added} added, ${totals.modified} modified, ${totals.deleted} deleted.`,
  );
  if (preview.conflicts.length > 0) {
    lines.push(`${preview.conflicts.length} conflict(s) — the plan would be refused as a whole and nothing written:`);
    for (const conflict of preview.conflicts) lines.push(`  ${conflict.message}`);
  }
  return `${lines.join("\n")}\n`;
}

function describeResult(result: ApplyRecordView): string {
  switch (result.outcome) {
    case "applied":
      return `Applied ${result.files.length} change(s) to the project (record ${result.id}).\n`;
    case "refused":
      return `Refused; nothing was written (record ${result.id}):\n${result.conflicts.map((conflict) => `  ${conflict.message}`).join("\n")}\n`;
    default:
      return `${result.outcome === "rolled-back" ? "Rolled back" : "Failed"}: ${result.error ?? "unknown error"} (record ${result.id}).\n`;
  }
}

function target(config: CliConfig): { kind: "workspace" | "trial"; id: string } {
  const trials = config.workflow.trials;
  const workspaces = config.positionals;
  if (trials.length + workspaces.length !== 1)
    throw new UsageError(
      "name one workspace or one trial, e.g. invariant-web apply --trial TRIAL [--yes] or invariant-web apply ws-0123456789abcdef01234567 [--yes]",
    );
  return trials[0] ? { kind: "trial", id: trials[0] } : { kind: "workspace", id: workspaces[0] ?? "" };
}

/**
 * Shows the plan (exit 0; 3 when it conflicts); with --yes applies it: exit 0 applied, 3 refused
 * (nothing written), 1 rolled back or failed. --json prints the `apply` envelope (cli-schemas.ts).
 */
export function runApplyCommand(options: ApplyCommandOptions): Promise<number> {
  const { config } = options;
  const io = { ...(options.out ? { out: options.out } : {}), ...(options.err ? { err: options.err } : {}) };
  return runWorkflow({ config, io }, "apply", async () => {
    const { kind, id } = target(config);
    const api =
      runningLauncher(config.dataDir) !== null
        ? await (options.connect ?? connectToDashboard)(config.dataDir)
        : await openDirectly({ dataDir: config.dataDir, root: options.root });
    try {
      const preview = kind === "trial" ? await api.previewTrial(id) : await api.preview(id);
      const conflicted = preview.conflicts.length > 0;
      if (!config.yes)
        return {
          data: { preview: applyPreviewOutput(preview), result: null },
          human: `${describePreview(preview)}${!conflicted && preview.steps.length > 0 ? "Run again with --yes to apply it.\n" : ""}`,
          exit: conflicted ? "refused" : "ok",
        };
      const result = kind === "trial" ? await api.runTrial(id, preview.planHash) : await api.run(id, preview.planHash);
      return {
        data: { preview: applyPreviewOutput(preview), result: applyRecordOutput(result) },
        human: `${describePreview(preview)}${describeResult(result)}`,
        exit: result.outcome === "applied" ? "ok" : result.outcome === "refused" ? "refused" : "failure",
      };
    } finally {
      await api.close();
    }
  });
}
