"use client";
import { HARNESS_INFO } from "../../../shared/harness-kinds";
import { harnessKindSchema } from "../../../shared/vocabulary";
import type { TrialView } from "../../../shared/study-schemas";
import type { TrialManifest } from "../../../shared/trial-manifest";
import { RerunButton } from "./rerun-button";
import { shortId } from "../study-format";

const WORKSPACE_KINDS = {
  overlay: "copy-on-write overlay over the snapshot (the trial's own layer holds only its changes)",
  copy: "a full copy of the snapshot",
} as const;

const mib = (bytes: number) => `${Math.round(bytes / (1024 * 1024)).toLocaleString("en-US")} MiB`;

function harnessLabel(kind: string): string {
  const parsed = harnessKindSchema.safeParse(kind);
  return parsed.success ? HARNESS_INFO[parsed.data].label : kind;
}

/** The model, and the effort when the configuration's CLI takes one. */
function modelText(configuration: TrialManifest["configuration"]): string {
  const parsed = harnessKindSchema.safeParse(configuration.harness);
  const efforts = parsed.success ? HARNESS_INFO[parsed.data].efforts : [];
  return efforts.length > 0 ? `${configuration.model} · effort ${configuration.reasoningEffort}` : configuration.model;
}

function rows(manifest: TrialManifest): [string, string][] {
  const { environment, snapshot, configuration, limits } = manifest;
  return [
    ["Image", `${environment.imageId ?? "—"}${environment.version ? ` (environment v${environment.version})` : ""}`],
    ["Snapshot", `${snapshot.id ?? "—"}${snapshot.files === null ? "" : ` · ${snapshot.files} files`}`],
    ["Workspace", manifest.workspaceKind ? WORKSPACE_KINDS[manifest.workspaceKind] : "not reported yet"],
    ["Harness", `${harnessLabel(configuration.harness)} ${manifest.harnessVersion ?? "(version not reported yet)"}`],
    ...(configuration.harness !== "command" ? ([["Model", modelText(configuration)]] as [string, string][]) : []),
    ["Model the provider reported", manifest.reportedModel ?? "not recorded"],
    ["Overrides", configuration.overrides.length > 0 ? configuration.overrides.join(" ") : "none"],
    ["Instructions", configuration.instructions || "none"],
    ...(configuration.command ? ([["Command", configuration.command]] as [string, string][]) : []),
    ["Test command", manifest.testCommand],
    ["Captured files", manifest.testFiles.map((file) => `${file.path} ${shortId(file.sha256)}`).join(", ") || "none"],
    [
      "Limits",
      `${limits.cpus} CPUs, ${mib(limits.memoryBytes)}, ${limits.pids} processes, network ${limits.network}; ` +
        `${manifest.concurrency} at a time; agent ${manifest.agentTimeoutSec} s, evaluation ${manifest.evalTimeoutSec} s; ` +
        `${manifest.tokenBudget.toLocaleString("en-US")} tokens`,
    ],
  ];
}

/** What the trial ran on (its manifest), folded; the rerun of this one trial from it. */
export function TrialManifestSection({ studyId, trial }: { studyId: string; trial: TrialView }) {
  const manifest = trial.manifest;
  return (
    <details className="mb-4" data-testid="trial-manifest">
      <summary className="cursor-pointer text-xs uppercase tracking-wide text-muted">Manifest: what it ran on</summary>
      {manifest ? (
        <>
          <dl className="mt-2 grid grid-cols-[max-content_1fr] gap-x-4 gap-y-1 text-sm">
            {rows(manifest).map(([label, value]) => (
              <div key={label} className="contents">
                <dt className="text-xs text-muted">{label}</dt>
                <dd className="font-mono text-xs break-all">{value}</dd>
              </div>
            ))}
          </dl>
          <div className="mt-2">
            <RerunButton studyId={studyId} trialId={trial.id} label="Rerun this trial" />
          </div>
        </>
      ) : (
        <p className="mt-2 text-sm text-muted">
          No manifest: the trial has not been queued yet, or it ran before manifests were recorded.
        </p>
      )}
    </details>
  );
}
