/**
 * The words for a manifest's fields (src/shared/trial-manifest.ts), where "What differed" and other pages
 * show them: `configuration.model` reads "Model", `reportedModel` "Model the provider reported". One place,
 * so a page never shows a raw key; a unit test checks every field of a manifest has its words here.
 */

const FIELD_LABELS: Readonly<Record<string, string>> = {
  version: "Manifest version",
  "study.id": "Study",
  "study.projectId": "Project",
  "environment.versionId": "Environment version id",
  "environment.version": "Environment version",
  "environment.imageId": "Environment image",
  "environment.imageDigest": "Environment image digest",
  "environment.runtimes": "Runtimes",
  "snapshot.id": "Snapshot",
  "snapshot.files": "Files in the snapshot",
  "snapshot.bytes": "Snapshot size (bytes)",
  "configuration.harness": "Harness",
  "configuration.model": "Model",
  "configuration.reasoningEffort": "Reasoning effort",
  "configuration.instructions": "Instructions",
  "configuration.overrides": "Codex overrides",
  "configuration.command": "Agent command",
  taskPrompt: "Task",
  testCommand: "Test command",
  junitPath: "JUnit report path",
  testFiles: "Captured files",
  "limits.cpus": "CPUs",
  "limits.memoryBytes": "Memory (bytes)",
  "limits.swapBytes": "Swap (bytes)",
  "limits.pids": "Process limit",
  "limits.network": "Network",
  "limits.allowHostedTools": "Hosted tools allowed",
  concurrency: "Trials at a time",
  agentTimeoutSec: "Agent time limit (s)",
  evalTimeoutSec: "Evaluation time limit (s)",
  tokenBudget: "Token budget per trial",
  attempt: "Attempt",
  "followUp.parentTrialId": "Follow-up of trial",
  "followUp.agentImage": "Agent image (that trial's result)",
  "followUp.prompt": "Feedback sent to the agent",
  harnessVersion: "Harness version",
  reportedModel: "Model the provider reported",
  workspaceKind: "Workspace",
};

/** The parts of a captured file's entry (`testFiles[test/a.js].sha256`). */
const CAPTURED_FILE_PARTS: Readonly<Record<string, string>> = {
  path: "path",
  sha256: "SHA-256",
  bytes: "size (bytes)",
  role: "role",
  kind: "kind",
};

/** "someNewField" → "Some new field": for a field added later without words here. */
function words(key: string): string {
  const spaced = key
    .replace(/([a-z0-9])([A-Z])/g, "$1 $2")
    .replace(/[._]+/g, " ")
    .toLowerCase();
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** Whether a manifest path has its own words (the test's check that none is missing). */
export function hasManifestFieldLabel(path: string): boolean {
  const file = /^testFiles\[(.*)\]\.(\w+)$/.exec(path);
  return file ? file[2]! in CAPTURED_FILE_PARTS : path in FIELD_LABELS;
}

/** The words for a manifest field's dotted path (as `flattenManifest` makes them). */
export function manifestFieldLabel(path: string): string {
  const file = /^testFiles\[(.*)\]\.(\w+)$/.exec(path);
  if (file) return `Captured file ${file[1]}: ${CAPTURED_FILE_PARTS[file[2]!] ?? words(file[2]!)}`;
  return FIELD_LABELS[path] ?? words(path);
}
