import { z } from "zod";
import { dependencyKindSchema, runtimeRequestSchema } from "../../../shared/dependency-schemas";
import { networkModeSchema } from "../../../shared/project-schemas";
import { containerLimitsSchema } from "../runtime/container-limits";
import type { JobDefinition } from "./job-catalog";

/** A dependency step's folder and what it installs (kind "dependencies"). */
const dependencyBuildSchema = z.object({
  dirId: z.string().regex(/^deps-[0-9a-f]{24}$/),
  kind: dependencyKindSchema,
  outputs: z.array(z.string()),
  /** Runtimes the manifests declare: the step installs Node.js to match and reports the others. */
  runtimes: z.array(runtimeRequestSchema).max(3).optional(),
});

/** A devcontainer.json build (kind "devcontainer"): where its image comes from and what runs in it. */
const devcontainerBuildSchema = z.object({
  file: z.string(),
  /** A local image to start from ("image"), or a Dockerfile build: the context tar in the data dir (relative). */
  image: z.string().optional(),
  build: z
    .object({
      contextTar: z.string().regex(/^devcontainer-contexts\/[0-9a-f]{24}\.tar$/),
      dockerfile: z.string(),
      args: z.record(z.string(), z.string()),
      target: z.string().nullable(),
      /** The images its FROM lines need on the engine (checked before building; nothing is pulled). */
      baseImages: z.array(z.string()).max(64),
    })
    .optional(),
  containerEnv: z.record(z.string(), z.string()),
  remoteUser: z.string().nullable(),
  /** The lifecycle commands (onCreateCommand, updateContentCommand, postCreateCommand) in order. */
  commands: z.array(z.object({ key: z.string(), script: z.string() })).max(3),
  /** Keys that do nothing here (said in the log). */
  ignored: z.array(z.object({ key: z.string(), reason: z.string() })).max(64),
});
export type DevcontainerBuild = z.infer<typeof devcontainerBuildSchema>;

/** Build a new environment version: run a script in a container of `fromImage`, commit on exit 0. */
export const prepareEnvironmentJob = {
  name: "environment.prepare",
  schema: z.object({
    projectId: z.string(),
    versionId: z.string(),
    kind: z.enum(["base", "command", "dependencies", "devcontainer"]),
    fromImage: z.string(),
    command: z.string().nullable(),
    repository: z.string(),
    tag: z.string(),
    network: networkModeSchema,
    limits: containerLimitsSchema,
    /** The project's "Run as root" switch: builds run as root anyway, but then keep root's home as it is. */
    runAsRoot: z.boolean().optional(),
    timeoutMs: z.number().int().positive(),
    dependencies: dependencyBuildSchema.optional(),
    devcontainer: devcontainerBuildSchema.optional(),
  }),
  result: z.object({ status: z.enum(["ready", "failed"]) }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;

export type PrepareEnvironmentJob = z.infer<typeof prepareEnvironmentJob.schema>;

/** Remove the image of a deleted environment version from the worker's engine. */
export const removeEnvironmentImageJob = {
  name: "environment.remove-image",
  schema: z.object({ reference: z.string() }),
  result: z.object({ removed: z.boolean() }),
} satisfies JobDefinition<z.ZodType, z.ZodType>;
