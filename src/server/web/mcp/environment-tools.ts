import { z } from "zod";
import { CliInputError, CliTimeout } from "../../../shared/automation-errors";
import type { DashboardApi } from "./mcp-backend";
import { defineTool, projectRefSchema, sleep, waitSecondsSchema, type ToolContext } from "./mcp-tool";
import { resolveProject } from "./project-ref";

/** environment_status, environment_prepare, dependencies_install: a project's environment versions and builds. */

const POLL_MS = 1000;

async function status(api: DashboardApi, projectId: string) {
  const [overview, dependencies, devcontainer] = await Promise.all([
    api.environments.overview.query({ projectId }),
    api.dependencies.status.query({ projectId }),
    api.environments.devcontainer.query({ projectId }),
  ]);
  const versions = overview.versions.map((v) => ({
    id: v.id,
    version: v.version,
    status: v.status,
    active: v.active,
    origin: v.origin,
    command: v.command,
    parentVersion: v.parentVersion,
    error: v.error,
    durationMs: v.durationMs,
    sizeBytes: v.sizeBytes,
    createdAt: v.createdAt,
  }));
  return { versions, diskBytes: overview.diskBytes, dependencies, devcontainer };
}

/** Waits for a version's build to end (ready or failed); a timeout error after `seconds` (the build goes on). */
async function untilBuilt(options: { context: ToolContext; projectId: string; versionId: string; seconds: number }) {
  const { context, projectId, versionId } = options;
  const deadline = Date.now() + options.seconds * 1000;
  for (let tick = 0; ; tick += 1) {
    const now = await status(context.backend.api, projectId);
    const version = now.versions.find((v) => v.id === versionId);
    if (version && version.status !== "building") return { ...now, version };
    if (Date.now() >= deadline || context.signal.aborted)
      throw new CliTimeout(
        `environment version ${version?.version ?? versionId} is still building after ${options.seconds} s; it goes on: call environment_status (or wait again).`,
      );
    await context.progress({ progress: tick, message: `building version ${version?.version ?? "?"}…` });
    await sleep(POLL_MS, context.signal);
  }
}

export const environmentStatus = defineTool({
  name: "environment_status",
  title: "A project's environment",
  description:
    "A project's environment versions (building, ready or failed; the active one is what studies and sessions use) and its dependency step: what it installs and whether the active version has it.",
  access: "read",
  input: z.strictObject({ project: projectRefSchema }),
  run: async (input, { backend }) => {
    const project = await resolveProject(backend.api, input.project);
    return { data: { project: { id: project.id, name: project.name }, ...(await status(backend.api, project.id)) } };
  },
});

const buildAnswer = (built: Awaited<ReturnType<typeof untilBuilt>>, what: string) => ({
  data: built,
  text: `${what}: version ${built.version.version} ${built.version.status}${built.version.error ? ` (${built.version.error})` : ""}.`,
  ...(built.version.status === "ready"
    ? {}
    : { refused: { message: built.version.error ?? "the build failed", code: "BUILD_FAILED" } }),
});

export const environmentPrepare = defineTool({
  name: "environment_prepare",
  title: "Prepare an environment",
  description:
    "Builds a project's environment: the first version from the base image; with `command` a new version made by running that shell command in the active one (with network); with `devcontainer: true` a version from the project's .devcontainer/devcontainer.json (image or build, containerEnv, remoteUser, onCreate/postCreate commands; environment_status shows whether it is usable). Waits for the build's end up to waitSeconds.",
  access: "write",
  input: z.strictObject({
    project: projectRefSchema,
    command: z
      .string()
      .trim()
      .min(1)
      .max(10_000, "Commands are at most 10,000 characters.")
      .optional()
      .describe("A shell command to run in the active version, e.g. apt-get install -y ripgrep."),
    devcontainer: z
      .boolean()
      .default(false)
      .describe("Build from the project's devcontainer.json instead (not with command)."),
    waitSeconds: waitSecondsSchema("the build"),
  }),
  run: async (input, context) => {
    const { api } = context.backend;
    const project = await resolveProject(api, input.project);
    if (input.command && input.devcontainer)
      throw new CliInputError("Give a command or devcontainer: true, not both.", {
        devcontainer: ["A devcontainer.json build runs its own commands; leave out command."],
      });
    const started = input.devcontainer
      ? await api.environments.prepareFromDevcontainer.mutate({ projectId: project.id })
      : input.command
        ? await api.environments.prepareWithCommand.mutate({ projectId: project.id, command: input.command })
        : await api.environments.prepare.mutate({ projectId: project.id });
    const built = await untilBuilt({
      context,
      projectId: project.id,
      versionId: started.id,
      seconds: input.waitSeconds,
    });
    return buildAnswer(built, `Prepared ${project.name}`);
  },
});

export const dependenciesInstall = defineTool({
  name: "dependencies_install",
  title: "Install the dependencies",
  description:
    "Runs a project's dependency step (detected from its manifests, e.g. npm ci) as a new environment version whose installed folders every trial gets. Waits for the build's end up to waitSeconds.",
  access: "write",
  input: z.strictObject({ project: projectRefSchema, waitSeconds: waitSecondsSchema("the install") }),
  run: async (input, context) => {
    const { api } = context.backend;
    const project = await resolveProject(api, input.project);
    const started = await api.dependencies.install.mutate({ projectId: project.id });
    const built = await untilBuilt({
      context,
      projectId: project.id,
      versionId: started.id,
      seconds: input.waitSeconds,
    });
    return buildAnswer(built, `Installed the dependencies of ${project.name}`);
  },
});
