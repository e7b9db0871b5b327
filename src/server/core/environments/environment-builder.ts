import path from "node:path";
import { createBuildLog } from "./build-log";
import type { CodexBinary } from "../agents/codex-binary";
import type { EventPublisher } from "../events/event-stream";
import type { PrepareEnvironmentJob } from "../jobs/environment-jobs";
import { LABEL } from "../runtime/container-spec";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { planDependencyStep } from "../dependencies/dependency-step-plan";
import type { Mount, WorkerIdentity } from "../runtime/container-spec";
import { messageOf } from "../../../shared/error-message";
import { devcontainerImage, devcontainerScript } from "./devcontainer-image";

export const CODEX_MOUNT = "/opt/invariant/codex";
export const BASE_IMAGE_HINT =
  "There is no image registry to pull from: build the default base image offline with `node scripts/base-image.mjs` (debootstrap + docker import), or `docker load`/`docker import` your own and set it as the project's base image.";

export interface EnvironmentBuilderDeps {
  runtime: ContainerRuntime;
  codex: CodexBinary | null;
  publish: EventPublisher;
  worker: WorkerIdentity;
  /** The data dir (dependency steps install into dependencies/<id>/ and mount caches/); base and command builds need none. */
  dataDir?: string;
  /** Containers this worker is running now; the reconciler leaves these alone. */
  active: Set<string>;
  clock?: () => number;
  /** How often buffered output is published (ms). */
  flushMs?: number;
  /** The build log's limits (tests lower them); see build-log.ts. */
  logLimits?: { maxBatchChars?: number; maxTotalChars?: number };
}

/** The script that turns a base image into a first environment version. */
export function baseScript(options: { codexFromMount: boolean; codexVersion: string }): string {
  const installCodex = options.codexFromMount
    ? `install -m 0755 ${CODEX_MOUNT}/codex /usr/local/bin/codex`
    : `command -v npm >/dev/null || { echo "npm is missing in the base image, so Codex cannot be installed" >&2; exit 12; }; npm install -g @openai/codex@${options.codexVersion}`;
  return [
    "set -eu",
    'echo "[1/3] installing the Codex CLI"',
    installCodex,
    'echo "[2/3] preparing the home directory and /workspace"',
    "mkdir -p /root/.codex /workspace",
    'echo "[3/3] checking"',
    "codex --version",
  ].join("\n");
}

type BuildResult = { status: "ready" | "failed"; imageId?: string; sizeBytes?: number; error?: string };
type Finish = (result: BuildResult) => Promise<{ status: "ready" | "failed" }>;

/** Publishes `environment.finished` with the build's duration so far. */
function finisher(deps: EnvironmentBuilderDeps, job: PrepareEnvironmentJob): Finish {
  const clock = deps.clock ?? Date.now;
  const started = clock();
  return async (data) => {
    await deps.publish({
      type: "environment.finished",
      projectId: job.projectId,
      data: { versionId: job.versionId, durationMs: clock() - started, ...data },
    });
    return { status: data.status };
  };
}

interface BuildPlan {
  script: string;
  mounts: Mount[];
  env?: Record<string, string>;
  workingDir?: string;
}

/** The script to run and the mounts it needs, or why this build cannot run on this worker. */
async function buildPlan(options: {
  deps: EnvironmentBuilderDeps;
  job: PrepareEnvironmentJob;
  imageArchitecture: string;
}): Promise<BuildPlan | { error: string }> {
  const { job, imageArchitecture } = options;
  if (job.kind === "dependencies") {
    if (!job.dependencies || !options.deps.dataDir)
      return { error: "A dependency build needs its dependency folder and the worker's data dir." };
    return planDependencyStep({
      dataDir: options.deps.dataDir,
      projectId: job.projectId,
      build: job.dependencies,
      command: job.command ?? "true",
    });
  }
  if (job.kind !== "base" && job.kind !== "devcontainer") return { script: job.command ?? "true", mounts: [] };
  const codex = options.deps.codex;
  const sameArch = codex !== null && codex.dockerArch === imageArchitecture;
  if (!sameArch && job.network !== "internet") {
    return {
      error: `The Codex binary shipped with invariant-web is for ${codex?.dockerArch ?? "no Linux architecture"}, but ${job.fromImage} is ${imageArchitecture}; installing it needs the network. Set the project's network to "internet" for this build, or use a ${codex?.dockerArch ?? "matching"} base image.`,
    };
  }
  const mounts = sameArch ? [{ hostPath: path.dirname(codex.path), containerPath: CODEX_MOUNT, readOnly: true }] : [];
  const script = baseScript({ codexFromMount: sameArch, codexVersion: codex?.version ?? "latest" });
  if (job.kind === "base" || !job.devcontainer) return { script, mounts };
  // containerEnv is the container's environment: its lifecycle commands see it, and its commit keeps it in the image
  return {
    script: devcontainerScript({ base: script, spec: job.devcontainer }),
    mounts,
    env: { HOME: "/root", DEBIAN_FRONTEND: "noninteractive", ...job.devcontainer.containerEnv },
  };
}

const NAME_RESOLUTION =
  /Temporary failure resolving|Could not resolve host|Temporary failure in name resolution|getaddrinfo (EAI_AGAIN|ENOTFOUND)|Name or service not known|Failed to resolve/i;

/** A failed build whose output shows names could not be resolved: say why, and how to give it network. */
export function nameResolutionHint(options: { tail: string; network: string }): string {
  const found = NAME_RESOLUTION.exec(options.tail);
  if (!found) return "";
  const why =
    options.network === "none"
      ? "it ran without network (the project's network mode is none)"
      : "the container could not reach a name server";
  const fix =
    options.network === "none"
      ? "Run the command with network (the switch under the command box, on by default), or set the project's network mode to internet."
      : "Check the host's DNS and proxy settings (docker run --rm debian getent hosts deb.debian.org should answer).";
  return ` Its output shows host names could not be resolved ("${found[0]}"): ${why}. ${fix}`;
}

/**
 * Runs the container to its end, publishing its output every `flushMs`; exit 0 → commits it as the
 * version's image. Returns the outcome without announcing it: the caller removes the container first.
 */
async function runAndCommit(options: {
  deps: EnvironmentBuilderDeps;
  job: PrepareEnvironmentJob;
  containerId: string;
}): Promise<BuildResult> {
  const { deps, job, containerId } = options;
  const log = createBuildLog({
    ...deps.logLimits,
    publish: (text) =>
      deps.publish({ type: "environment.log", projectId: job.projectId, data: { versionId: job.versionId, text } }),
  });
  const flush = () => log.flush(true);
  const timer = setInterval(() => void log.flush().catch(() => undefined), deps.flushMs ?? 250);
  try {
    await deps.publish({
      type: "environment.started",
      projectId: job.projectId,
      data: { versionId: job.versionId, containerId },
    });
    let tail = "";
    const { exitCode, timedOut } = await deps.runtime.runToExit(
      containerId,
      (chunk) => {
        log.add(chunk);
        tail = (tail + chunk).slice(-16_384);
      },
      { timeoutMs: job.timeoutMs },
    );
    clearInterval(timer);
    await flush();
    if (timedOut)
      return {
        status: "failed",
        error: `Stopped after ${Math.round(job.timeoutMs / 1000)} s (the prepare time limit). The previous version stays active.`,
      };
    if (exitCode !== 0)
      return {
        status: "failed",
        error: `The command exited with code ${exitCode}.${nameResolutionHint({ tail, network: job.network })} The previous version stays active; see the log.`,
      };
    const imageId = await deps.runtime.commitContainer(containerId, {
      repository: job.repository,
      tag: job.tag,
      labels: {
        [LABEL.managed]: "true",
        [LABEL.project]: job.projectId,
        [LABEL.environment]: job.versionId,
        // later versions and trial commits built on this image inherit the labels, and with them the dependencies
        ...(job.dependencies
          ? {
              [LABEL.dependencies]: job.dependencies.dirId,
              [LABEL.dependencyOutputs]: job.dependencies.outputs.join(","),
            }
          : {}),
      },
    });
    const committed = await deps.runtime.inspectImage(imageId);
    return { status: "ready", imageId, sizeBytes: committed?.sizeBytes ?? 0 };
  } catch (error) {
    clearInterval(timer);
    await flush().catch(() => undefined);
    return { status: "failed", error: messageOf(error) };
  } finally {
    clearInterval(timer);
  }
}

/**
 * Builds an environment version on this worker's engine: a container from `fromImage` runs the
 * script; exit 0 → commit it as `repository:tag`; anything else → the version failed and nothing is
 * committed. The container is always removed, before the outcome is announced: a version seen failed or
 * ready has no container left on its image (deleting it at once must not meet "image is in use").
 * Progress goes out as events.
 */
export async function prepareEnvironment(
  deps: EnvironmentBuilderDeps,
  job: PrepareEnvironmentJob,
): Promise<{ status: "ready" | "failed" }> {
  const finish = finisher(deps, job);
  let containerId: string;
  // the image a devcontainer's Dockerfile built: the committed version's parent, or removed when the build failed
  let built: string | null = null;
  const dropBuilt = () => (built ? deps.runtime.removeImage(built).catch(() => undefined) : Promise.resolve());
  try {
    // a devcontainer version starts from its own image: the devcontainer.json's, or its Dockerfile built here first
    const fromImage =
      job.kind === "devcontainer"
        ? await devcontainerImage({ runtime: deps.runtime, publish: deps.publish, job, dataDir: deps.dataDir })
        : job.fromImage;
    if (job.devcontainer?.build) built = fromImage;
    containerId = await createBuildContainer(deps, { ...job, fromImage });
  } catch (error) {
    await dropBuilt();
    // announced, so whoever follows the build (the CLI, the project page) hears of it now, not from a sweep
    return finish({ status: "failed", error: messageOf(error) });
  }
  deps.active.add(containerId);
  const result = await runAndCommit({ deps, job, containerId }); // never throws: failures are its result
  try {
    await deps.runtime.removeContainer(containerId);
  } catch (error) {
    await finish(result); // the outcome stands; the job fails with the engine's reason
    throw error;
  } finally {
    deps.active.delete(containerId);
  }
  if (result.status === "failed") await dropBuilt();
  return finish(result);
}

/** The build's container, created (not started); throws why it cannot be made (no image, no engine, …). */
async function createBuildContainer(deps: EnvironmentBuilderDeps, job: PrepareEnvironmentJob): Promise<string> {
  const image = await deps.runtime.inspectImage(job.fromImage);
  if (!image)
    throw new Error(`Image ${job.fromImage} is not available on this worker's Docker engine. ${BASE_IMAGE_HINT}`);
  const plan = await buildPlan({ deps, job, imageArchitecture: image.architecture });
  if ("error" in plan) throw new Error(plan.error);
  return deps.runtime.createContainer({
    image: job.fromImage,
    command: ["/bin/sh", "-c", plan.script],
    env: plan.env ?? { HOME: "/root", DEBIAN_FRONTEND: "noninteractive" },
    workingDir: plan.workingDir ?? "/root",
    labels: { project: job.projectId, role: "prepare", environment: job.versionId, worker: deps.worker },
    limits: job.limits,
    network: job.network,
    // builds run as root whatever the setting; with it off, their end hands /root to the host user
    runAsRoot: job.runAsRoot ?? false,
    mounts: plan.mounts,
  });
}
