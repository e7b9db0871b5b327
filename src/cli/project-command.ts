import path from "node:path";
import { agentConfigurationSchema, projectSettingsSchema, type ProjectSettings } from "../shared/project-schemas";
import type { ProjectView } from "../shared/project-schemas";
import { environmentVersionOutput, projectOutput, studySummaryOutput, verdictText } from "./cli-views";
import { UsageError } from "./usage-error";
import {
  CliInputError,
  onePositional,
  resolveProject,
  runWorkflow,
  usageFailure,
  type WorkflowOptions,
} from "./workflow-cli";

/** `invariant-web project add|list|show|settings`: thin over the dashboard's projects API. */

const GIB = 1024 ** 3;
const MIB = 1024 ** 2;

function describeProject(p: ProjectView): string {
  const c = p.defaultConfiguration;
  return [
    `${p.name}  (${p.id})`,
    `  directory      ${p.hostPath}${p.folder.problem ? `\n  folder         ${p.folder.state}: ${p.folder.problem}` : ""}`,
    `  network        ${p.networkMode}`,
    `  cpus           ${p.cpus}`,
    `  memory         ${(p.memoryBytes / GIB).toFixed(2).replace(/\.?0+$/, "")} GiB (swap ${(p.swapBytes / GIB).toFixed(2).replace(/\.?0+$/, "")} GiB)`,
    `  pids           ${p.pids}`,
    `  base image     ${p.baseImage ?? "(the default)"}`,
    `  configuration  ${c.harness} ${c.model || "(no model)"} ${c.reasoningEffort}${c.instructions ? " + instructions" : ""}`,
    `  token budget   ${p.runTokenBudget.toLocaleString("en")} per run`,
    `  containers     ${p.runAsRoot ? "run as root" : "run as the host user"}, disk budget ${(p.diskBudgetBytes / GIB).toFixed(2).replace(/\.?0+$/, "")} GiB per trial, ${p.openFiles.toLocaleString("en")} open files`,
  ].join("\n");
}

/** "4GiB", "512 MiB", "1073741824" → bytes, for memoryBytes / swapBytes / diskBudgetBytes. */
function bytesValue(text: string): unknown {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(GiB|G|MiB|M|B)?\s*$/i.exec(text);
  if (!match) return text;
  const unit = (match[2] ?? "B").toUpperCase();
  const factor = unit.startsWith("G") ? GIB : unit.startsWith("M") ? MIB : 1;
  return Math.round(Number(match[1]) * factor);
}

function parsedValue(key: string, text: string): unknown {
  if (key === "memoryBytes" || key === "swapBytes" || key === "diskBudgetBytes") return bytesValue(text);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** `--set key=value` pairs → a partial settings object (nested keys like defaultConfiguration.model merge into the current one). */
export function settingsFromFlags(pairs: readonly string[], current: ProjectSettings): Partial<ProjectSettings> {
  const known = Object.keys(projectSettingsSchema.shape);
  const nested = Object.keys(agentConfigurationSchema.shape);
  const changes: Record<string, unknown> = {};
  for (const pair of pairs) {
    const at = pair.indexOf("=");
    if (at <= 0) throw new UsageError(`--set takes key=value, e.g. --set cpus=2; got "${pair}".`);
    const key = pair.slice(0, at).trim();
    const value = pair.slice(at + 1);
    const [head, sub] = key.split(".", 2) as [string, string | undefined];
    if (!known.includes(head) || (sub !== undefined && (head !== "defaultConfiguration" || !nested.includes(sub))))
      throw new UsageError(
        `unknown setting "${key}". Settings: ${known.join(", ")}; defaultConfiguration.${nested.join(", defaultConfiguration.")}.`,
      );
    if (sub !== undefined) {
      const base = (changes.defaultConfiguration ?? { ...current.defaultConfiguration }) as Record<string, unknown>;
      base[sub] = sub === "instructions" || sub === "model" ? value : parsedValue(sub, value);
      changes.defaultConfiguration = base;
    } else changes[head] = head === "name" || head === "instructions" ? value : parsedValue(head, value);
  }
  const result = projectSettingsSchema.partial().safeParse(changes);
  if (!result.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of result.error.issues) (fieldErrors[issue.path.join(".")] ??= []).push(issue.message);
    throw new CliInputError("these settings are not valid:", fieldErrors);
  }
  return result.data;
}

function show(options: WorkflowOptions): Promise<number> {
  const { config } = options;
  return runWorkflow(options, "project show", async (context) => {
    const ref = onePositional(config, "project", "invariant-web project show my-app") ?? config.project;
    const project = await resolveProject(context, { ref, example: "invariant-web project show my-app" });
    const api = await context.api();
    const [overview, studies] = await Promise.all([
      api.environments.overview.query({ projectId: project.id }),
      api.studies.list.query({ projectId: project.id }),
    ]);
    const active = overview.versions.find((v) => v.active && v.status === "ready") ?? null;
    const lines = [
      describeProject(project),
      `  environment    ${active ? `v${active.version} (ready)` : "none ready: invariant-web environment prepare --project " + project.name}`,
      `  studies        ${studies.length}`,
      ...studies
        .slice(0, 10)
        .map((s) => `    ${s.id}  ${s.state.padEnd(9)} ${verdictText(s.baseline).padStart(7)} baseline  ${s.title}`),
    ];
    return {
      data: {
        project: projectOutput(project),
        environment: active ? environmentVersionOutput(active) : null,
        studies: studies.map(studySummaryOutput),
      },
      human: lines.join("\n"),
    };
  });
}

export function runProjectCommand(options: WorkflowOptions): Promise<number> {
  const { config } = options;
  const action = config.positionals[0];
  switch (action) {
    case "list":
      return runWorkflow(options, "project list", async (context) => {
        const projects = await (await context.api()).projects.list.query();
        return {
          data: { projects: projects.map(projectOutput) },
          human:
            projects.length === 0
              ? "No projects yet: add one with invariant-web project add DIR."
              : projects.map((p) => `${p.id}\t${p.name}\t${p.hostPath}`).join("\n"),
        };
      });
    case "add":
      return runWorkflow(options, "project add", async (context) => {
        const dir = onePositional(config, "directory", "invariant-web project add ~/code/app --name app");
        if (!dir) throw new UsageError("name the project's directory, e.g. invariant-web project add ~/code/app");
        const project = await (
          await context.api()
        ).projects.add.mutate({
          hostPath: path.resolve(dir),
          ...(config.workflow.name ? { name: config.workflow.name } : {}),
        });
        return {
          data: { project: projectOutput(project) },
          human: `Added project ${project.name} (${project.id}). Next: invariant-web environment prepare --project ${project.name}`,
        };
      });
    case "relink":
      return runWorkflow(options, "project relink", async (context) => {
        const example = "invariant-web project relink ~/code/app-moved --project app";
        const dir = onePositional(config, "directory", example);
        if (!dir) throw new UsageError(`name the project's new directory, e.g. ${example}`);
        const found = await resolveProject(context, { ref: config.project, example });
        const project = await (
          await context.api()
        ).projects.relink.mutate({ id: found.id, hostPath: path.resolve(dir) });
        return {
          data: { project: projectOutput(project) },
          human: `Relinked ${project.name} (${project.id}) to ${project.hostPath}.`,
        };
      });
    case "show":
      return show(options);
    case "settings":
      return runWorkflow(options, "project settings", async (context) => {
        const ref =
          onePositional(config, "project", "invariant-web project settings my-app --set cpus=2") ?? config.project;
        let project = await resolveProject(context, {
          ref,
          example: "invariant-web project settings my-app --set cpus=2",
        });
        const changed: string[] = [];
        if (config.workflow.set.length > 0) {
          const settings = settingsFromFlags(config.workflow.set, project);
          changed.push(...Object.keys(settings));
          project = await (await context.api()).projects.update.mutate({ id: project.id, settings });
        }
        return {
          data: { project: projectOutput(project), changed },
          human: `${changed.length > 0 ? `Changed ${changed.join(", ")}.\n` : ""}${describeProject(project)}`,
        };
      });
    default:
      return usageFailure(
        options,
        "project",
        'use "add", "list", "show", "settings" or "relink", e.g. invariant-web project add ~/code/app, invariant-web project show --last',
      );
  }
}
