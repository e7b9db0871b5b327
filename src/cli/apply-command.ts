import os from "node:os";
import type { ApplyPreviewView, ApplyRecordView } from "../shared/snapshot-schemas";
import type { CliConfig } from "./config";
import { openDatabaseOffline, runningLauncher } from "./database-access";

/**
 * `invariant-web apply WORKSPACE [--yes] [--json]`: shows the plan that applies a workspace's
 * changes to its project, with its conflicts; with --yes, applies that plan (by its hash).
 *
 * It reaches the database by the CLI's one rule (database-access.ts): through the running dashboard
 * (recorded as "admin"), else directly under the data-dir lock (recorded as "cli:<user>").
 */
export interface ApplyApi {
  preview(workspaceId: string): Promise<ApplyPreviewView>;
  run(workspaceId: string, planHash: string): Promise<ApplyRecordView>;
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
    close: () => Promise.resolve(),
  };
}

/** Opens the database directly; only when no launcher runs (the caller checked). */
async function openDirectly(options: { dataDir: string; root: string }): Promise<ApplyApi> {
  const offline = await openDatabaseOffline({ ...options, whatFor: "no workspace can exist there" });
  const [{ createApplyService }, { createApplyQueries }, { createProjectQueries }] = await Promise.all([
    import("../server/apply/apply-service"),
    import("../server/apply/apply.queries"),
    import("../server/projects/projects.queries"),
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

export async function runApplyCommand(options: ApplyCommandOptions): Promise<number> {
  const out = options.out ?? ((text: string) => process.stdout.write(text));
  const err = options.err ?? ((text: string) => process.stderr.write(text));
  const { config } = options;
  const workspaceId = config.positionals[0];
  if (!workspaceId || config.positionals.length > 1) {
    err("invariant-web apply: name one workspace, e.g. invariant-web apply ws-0123456789abcdef01234567 [--yes]\n");
    return 2;
  }
  const api =
    runningLauncher(config.dataDir) !== null
      ? await (options.connect ?? connectToDashboard)(config.dataDir)
      : await openDirectly({ dataDir: config.dataDir, root: options.root });
  try {
    const preview = await api.preview(workspaceId);
    if (!config.yes) {
      if (config.json) out(`${JSON.stringify(preview, null, 2)}\n`);
      else
        out(
          `${describePreview(preview)}${preview.conflicts.length === 0 && preview.steps.length > 0 ? "Run again with --yes to apply it.\n" : ""}`,
        );
      return preview.conflicts.length === 0 ? 0 : 1;
    }
    if (!config.json) out(describePreview(preview));
    const result = await api.run(workspaceId, preview.planHash);
    out(config.json ? `${JSON.stringify(result, null, 2)}\n` : describeResult(result));
    return result.outcome === "applied" ? 0 : 1;
  } finally {
    await api.close();
  }
}
