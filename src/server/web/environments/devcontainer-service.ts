import fs from "node:fs/promises";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import { DevcontainerRefusal } from "../../core/environments/devcontainer-config";
import { baseImagesOf } from "../../core/environments/devcontainer-dockerfile";
import {
  CONTEXT_DOCKERFILE,
  packBuildContext,
  readDevcontainer,
  type DevcontainerFound,
} from "../../core/environments/devcontainer-source";
import type { DevcontainerBuild } from "../../core/jobs/environment-jobs";
import { requireProjectFolder } from "../../core/storage/project-folder";
import type { DevcontainerRecord, DevcontainerStatus } from "../../../shared/devcontainer-schemas";
import { enqueueBuild, findProject, type EnvironmentDeps } from "./environment-build-queue";
import type { EnvironmentVersionView } from "./environments.queries";

/** Where the web side leaves a Dockerfile build's context for the worker (relative to the data dir). */
const CONTEXTS = "devcontainer-contexts";

/** A context tar older than this was never built (its job died before the worker took it): removed. */
const STALE_CONTEXT_MS = 24 * 60 * 60 * 1000;

async function removeStaleContexts(dir: string): Promise<void> {
  const names = await fs.readdir(dir).catch(() => [] as string[]);
  for (const name of names) {
    const file = path.join(dir, name);
    const stat = await fs.stat(file).catch(() => null);
    if (stat && Date.now() - stat.mtimeMs > STALE_CONTEXT_MS) await fs.rm(file, { force: true });
  }
}

/** What the version records of its devcontainer.json (containerEnv and build.args by name only: values may be secrets). */
function recordOf(found: DevcontainerFound): DevcontainerRecord {
  const { config } = found;
  const source = config.source;
  return {
    file: found.file,
    image: source.kind === "image" ? source.image : null,
    dockerfile:
      source.kind === "dockerfile" && found.dockerfile
        ? { path: source.dockerfile, sha256: found.dockerfile.sha256, context: source.context || "." }
        : null,
    buildArgs: source.kind === "dockerfile" ? Object.keys(source.args) : [],
    containerEnv: Object.keys(config.containerEnv),
    remoteUser: config.remoteUser,
    commands: config.commands,
    ignored: config.ignored,
  };
}

/** The FROM images a Dockerfile needs, or the refusal of one whose image cannot be told. */
function baseImages(found: DevcontainerFound): string[] {
  const source = found.config.source;
  if (source.kind !== "dockerfile" || !found.dockerfile) return [];
  const { images, problems } = baseImagesOf({ text: found.dockerfile.text, args: source.args });
  if (problems.length > 0)
    throw new DevcontainerRefusal(
      found.file,
      problems.map((problem) => `${source.dockerfile}: ${problem}`),
    );
  return images;
}

async function readOrRefuse(hostPath: string): Promise<DevcontainerFound> {
  let found: DevcontainerFound | null;
  try {
    found = await readDevcontainer(hostPath);
    if (found) baseImages(found);
  } catch (error) {
    if (error instanceof DevcontainerRefusal)
      throw new AppError({ code: "PRECONDITION_FAILED", message: error.message, cause: error });
    throw error;
  }
  if (!found)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `${hostPath} has no .devcontainer/devcontainer.json (nor .devcontainer.json). Add one, or prepare the environment from the base image.`,
    });
  return found;
}

/**
 * Environments from a project's devcontainer.json (web side): what the file gives, and a build of it.
 * The file is read and validated here, where the project's folder is; the worker builds what it names.
 */
export function createDevcontainerService(deps: EnvironmentDeps) {
  return {
    /** Whether the project has a devcontainer.json, and whether it can be used (or every reason why not). */
    async devcontainerStatus(projectId: string): Promise<DevcontainerStatus> {
      const project = await findProject(deps, projectId);
      try {
        const found = await readDevcontainer(project.hostPath);
        if (!found) return { state: "none" };
        baseImages(found);
        return { state: "usable", file: found.file, record: recordOf(found) };
      } catch (error) {
        if (!(error instanceof DevcontainerRefusal)) return { state: "none" };
        return { state: "refused", file: error.file, problems: error.problems };
      }
    },

    /** A new version built from the devcontainer.json: its image (or Dockerfile), containerEnv, lifecycle commands. */
    async prepareFromDevcontainer(projectId: string, withNetwork = true): Promise<EnvironmentVersionView> {
      const project = await findProject(deps, projectId);
      requireProjectFolder(project.hostPath);
      const found = await readOrRefuse(project.hostPath);
      const images = baseImages(found);
      const { config } = found;
      let contextTar: string | null = null;
      if (config.source.kind === "dockerfile") {
        await removeStaleContexts(path.join(deps.dataDir, CONTEXTS));
        try {
          const tar = await packBuildContext({
            projectDir: project.hostPath,
            found,
            intoDir: path.join(deps.dataDir, CONTEXTS),
          });
          contextTar = path.relative(deps.dataDir, tar);
        } catch (error) {
          if (error instanceof DevcontainerRefusal)
            throw new AppError({ code: "PRECONDITION_FAILED", message: error.message, cause: error });
          throw error;
        }
      }
      const build: DevcontainerBuild = {
        file: found.file,
        ...(config.source.kind === "image" ? { image: config.source.image } : {}),
        ...(config.source.kind === "dockerfile" && contextTar
          ? {
              build: {
                contextTar,
                dockerfile: CONTEXT_DOCKERFILE,
                args: config.source.args,
                target: config.source.target,
                baseImages: images,
              },
            }
          : {}),
        containerEnv: config.containerEnv,
        remoteUser: config.remoteUser,
        commands: config.commands,
        ignored: config.ignored,
      };
      try {
        return await enqueueBuild(deps, {
          projectId,
          fromImage: config.source.kind === "image" ? config.source.image : `${found.file} (Dockerfile)`,
          kind: "devcontainer",
          command: null,
          parentId: null,
          withNetwork,
          devcontainer: { build, record: recordOf(found) },
        });
      } catch (error) {
        if (contextTar) await fs.rm(path.join(deps.dataDir, contextTar), { force: true });
        throw error;
      }
    },
  };
}

export type DevcontainerService = ReturnType<typeof createDevcontainerService>;
