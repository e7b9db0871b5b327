import { outputFolderProblem } from "../server/core/dependencies/dependency-detection";
import { dependencyKindSchema, dependencyStepSchema, type DependencyStep } from "../shared/dependency-schemas";
import { followBuild } from "./build-follow";
import { environmentVersionOutput } from "./cli-views";
import { dependencyStatusOutput, dependencyStatusText } from "./dependency-output";
import { UsageError } from "./usage-error";
import {
  CliInputError,
  resolveProject,
  runWorkflow,
  usageFailure,
  type WorkflowContext,
  type WorkflowOptions,
} from "./workflow-cli";

const EXAMPLE = 'invariant-web dependencies set --project my-app --command "npm ci" --outputs node_modules';

/**
 * `invariant-web dependencies show|set|install --project P|--last`, through the running dashboard: the
 * project's dependency step (detected from its manifests, or set by hand), what the active environment
 * version has installed, and running the step as a new environment version (followed like
 * `environment prepare`).
 */
export function runDependenciesCommand(options: WorkflowOptions): Promise<number> {
  const { config } = options;
  const action = config.positionals[0];
  const projectOf = (context: WorkflowContext) => resolveProject(context, { ref: config.project, example: EXAMPLE });
  const ref = (p: { id: string; name: string }) => ({ id: p.id, name: p.name });
  switch (action) {
    case "show":
      return runWorkflow(options, "dependencies show", async (context) => {
        const project = await projectOf(context);
        const status = dependencyStatusOutput(
          await (await context.api()).dependencies.status.query({ projectId: project.id }),
        );
        return {
          data: { project: ref(project), dependencies: status },
          human: dependencyStatusText(project.name, status),
        };
      });
    case "set":
      return runWorkflow(options, "dependencies set", async (context) => {
        const project = await projectOf(context);
        const api = await context.api();
        const current = await api.dependencies.status.query({ projectId: project.id });
        const step = editedStep(context, current.step);
        const status = dependencyStatusOutput(await api.dependencies.setStep.mutate({ projectId: project.id, step }));
        return {
          data: { project: ref(project), dependencies: status },
          human: dependencyStatusText(project.name, status),
        };
      });
    case "install":
      return runWorkflow(options, "dependencies install", async (context) => {
        const project = await projectOf(context);
        const { ready, version } = await followBuild({
          context,
          project,
          start: (api) => api.dependencies.install.mutate({ projectId: project.id }),
          announce: (v) => `installing the dependencies of ${project.name} as environment version ${v.version}…`,
        });
        const api = await context.api();
        const overview = await api.environments.overview.query({ projectId: project.id });
        const final = overview.versions.find((v) => v.id === version.id) ?? version;
        const status = dependencyStatusOutput(await api.dependencies.status.query({ projectId: project.id }));
        return {
          data: { project: ref(project), version: environmentVersionOutput(final), dependencies: status },
          human: "",
          exit: ready ? "ok" : "failure",
        };
      });
    default:
      return usageFailure(options, "dependencies", `use "show", "set" or "install", e.g. ${EXAMPLE}`);
  }
}

const commaList = (text: string) => text.split(",").flatMap((item) => (item.trim() ? [item.trim()] : []));

/**
 * The step `dependencies set` saves: the current one (edited or detected) with the flags given
 * replacing its fields, checked before anything is sent; null with --detected (back to the detected step).
 */
function editedStep(context: WorkflowContext, current: DependencyStep | null): DependencyStep | null {
  const { config } = context;
  const flags = config.workflow.dependencyStep;
  const given =
    config.shellCommand !== null || flags.kind !== null || flags.outputs !== null || flags.manifests !== null;
  if (flags.detected) {
    if (given)
      throw new UsageError(
        "--detected goes back to the detected step: pass it without --command, --kind, --outputs or --manifests",
      );
    return null;
  }
  if (!given)
    throw new UsageError(
      `say what to change (--command, --kind, --outputs, --manifests) or pass --detected, e.g. ${EXAMPLE}`,
    );
  if (flags.kind !== null && !dependencyKindSchema.safeParse(flags.kind).success)
    throw new CliInputError(`--kind must be one of ${dependencyKindSchema.options.join(", ")}`, {
      kind: [`"${flags.kind}" is not a kind of dependency step.`],
    });
  const base = current ?? { kind: "command", command: "", outputs: [], manifests: [] };
  const parsed = dependencyStepSchema.safeParse({
    kind: flags.kind ?? base.kind,
    command: config.shellCommand ?? base.command,
    outputs: flags.outputs === null ? base.outputs : commaList(flags.outputs),
    manifests: flags.manifests === null ? base.manifests : commaList(flags.manifests),
  });
  if (!parsed.success) {
    const fieldErrors: Record<string, string[]> = {};
    for (const issue of parsed.error.issues) (fieldErrors[issue.path.map(String).join(".")] ??= []).push(issue.message);
    throw new CliInputError("the dependency step is not valid; nothing was changed", fieldErrors);
  }
  const problems = parsed.data.outputs.flatMap((output) => outputFolderProblem(output) ?? []);
  if (problems.length > 0)
    throw new CliInputError("the dependency step is not valid; nothing was changed", { outputs: problems });
  return parsed.data;
}
