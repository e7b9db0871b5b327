import { followBuild } from "./build-follow";
import { environmentVersionOutput } from "./cli-views";
import { resolveProject, runWorkflow, usageFailure, type WorkflowOptions } from "./workflow-cli";

const EXAMPLE = 'invariant-web environment prepare --project my-app --command "apt-get install -y ripgrep"';

/**
 * `invariant-web environment list|prepare --project P|--last [--command "..." | --devcontainer]`, through the running
 * dashboard. `prepare` streams the build log (to stdout; to stderr with --json) until the version is ready.
 */
export function runEnvironmentCommand(options: WorkflowOptions): Promise<number> {
  const { config } = options;
  const action = config.positionals[0];
  if (action === "list")
    return runWorkflow(options, "environment list", async (context) => {
      const project = await resolveProject(context, { ref: config.project, example: EXAMPLE });
      const overview = await (await context.api()).environments.overview.query({ projectId: project.id });
      const lines = overview.versions.map((v) => {
        const size = v.sizeBytes === null ? "-" : `${(v.sizeBytes / 1024 ** 2).toFixed(0)} MiB`;
        return `v${v.version}\t${v.status}${v.active ? " (active)" : ""}\t${size}\t${v.parentVersion ? `from v${v.parentVersion}` : "base"}\t${v.command ?? ""}`;
      });
      lines.push(`disk used: ${(overview.diskBytes / 1024 ** 2).toFixed(0)} MiB`);
      return {
        data: {
          project: { id: project.id, name: project.name },
          versions: overview.versions.map(environmentVersionOutput),
          diskBytes: overview.diskBytes,
        },
        human: lines.join("\n"),
      };
    });
  if (action !== "prepare") return usageFailure(options, "environment", `use "list" or "prepare", e.g. ${EXAMPLE}`);

  if (config.devcontainer && config.shellCommand)
    return usageFailure(
      options,
      "environment",
      "--devcontainer builds from the project's devcontainer.json, --command runs a command in the active version: pass one of them",
    );
  return runWorkflow(options, "environment prepare", async (context) => {
    const project = await resolveProject(context, { ref: config.project, example: EXAMPLE });
    const { ready, version } = await followBuild({
      context,
      project,
      start: (api) =>
        config.devcontainer
          ? api.environments.prepareFromDevcontainer.mutate({ projectId: project.id })
          : config.shellCommand
            ? api.environments.prepareWithCommand.mutate({ projectId: project.id, command: config.shellCommand })
            : api.environments.prepare.mutate({ projectId: project.id }),
      announce: (v) => `preparing version ${v.version} of ${project.name}…`,
    });
    const overview = await (await context.api()).environments.overview.query({ projectId: project.id });
    const final = overview.versions.find((v) => v.id === version.id) ?? version;
    return {
      data: { project: { id: project.id, name: project.name }, version: environmentVersionOutput(final) },
      human: "",
      exit: ready ? "ok" : "failure",
    };
  });
}
