import { createReadStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { createBuildLog } from "./build-log";
import { shellQuote } from "./devcontainer-lifecycle";
import type { EventPublisher } from "../events/event-stream";
import type { DevcontainerBuild, PrepareEnvironmentJob } from "../jobs/environment-jobs";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { LABEL } from "../runtime/container-spec";

/** What to do about an image the engine lacks: nothing is ever pulled. */
export const LOCAL_IMAGE_HINT =
  "invariant-web pulls from no registry: build it on this engine (docker build -t NAME .) or docker load it first, or start from the base image invariant-base:bookworm (FROM invariant-base:bookworm)";

/**
 * The image a devcontainer build starts its prepare container from, made ready on this worker's engine:
 * the devcontainer.json's `image` as it is, or its Dockerfile built offline from the staged context
 * (every FROM image checked first, so a missing one is named instead of pulled). The Docker build's
 * output goes into the version's log. Throws why it cannot (the version fails with that message).
 */
export async function devcontainerImage(options: {
  runtime: ContainerRuntime;
  publish: EventPublisher;
  job: PrepareEnvironmentJob;
  dataDir: string | undefined;
}): Promise<string> {
  const { runtime, job } = options;
  const spec = job.devcontainer;
  if (!spec) throw new Error("A devcontainer build needs what its devcontainer.json gave.");
  if (spec.image) {
    if (!(await runtime.inspectImage(spec.image)))
      throw new Error(
        `The image ${spec.image} (${spec.file} "image") is not on this worker's Docker engine: ${LOCAL_IMAGE_HINT}.`,
      );
    return spec.image;
  }
  const build = spec.build;
  if (!build || !options.dataDir) throw new Error(`${spec.file} gives neither an image nor a Dockerfile to build.`);
  for (const image of build.baseImages)
    if (!(await runtime.inspectImage(image)))
      throw new Error(
        `The Dockerfile builds FROM ${image}, which is not on this worker's Docker engine: ${LOCAL_IMAGE_HINT}.`,
      );
  const tar = path.join(options.dataDir, build.contextTar);
  const log = createBuildLog({
    publish: (text) =>
      options.publish({ type: "environment.log", projectId: job.projectId, data: { versionId: job.versionId, text } }),
  });
  log.add(
    `[devcontainer] building ${build.dockerfile} from ${spec.file} (offline: nothing is pulled, RUN has no network)\n`,
  );
  try {
    return await runtime.buildImage({
      context: createReadStream(tar),
      dockerfile: build.dockerfile,
      buildArgs: build.args,
      target: build.target,
      labels: { [LABEL.project]: job.projectId, [LABEL.environment]: job.versionId },
      memoryBytes: job.limits.memoryBytes,
      timeoutMs: job.timeoutMs,
      onOutput: (chunk) => log.add(chunk),
    });
  } finally {
    await log.flush(true).catch(() => undefined);
    await fs.rm(tar, { force: true });
  }
}

/**
 * The prepare script of a devcontainer version: the base script (the Codex CLI, /workspace), what was
 * ignored, the remoteUser check, then the lifecycle commands in order in /workspace, with containerEnv
 * set (the container's environment, which its commit bakes into the image).
 */
export function devcontainerScript(options: { base: string; spec: DevcontainerBuild }): string {
  const { spec } = options;
  const say = (text: string) => `echo ${shellQuote(text)}`;
  const lines = [options.base];
  for (const ignored of spec.ignored) lines.push(say(`[devcontainer] ignored "${ignored.key}": ${ignored.reason}`));
  const keys = Object.keys(spec.containerEnv);
  if (keys.length > 0) lines.push(say(`[devcontainer] containerEnv: ${keys.join(", ")}`));
  if (spec.remoteUser) {
    const user = shellQuote(spec.remoteUser);
    lines.push(
      `if id ${user} >/dev/null 2>&1; then ${say(`[devcontainer] remoteUser ${spec.remoteUser} exists in the image; sessions and trials run as the host user (or root with Run as root), so files in the project stay the host user's`)}; else ${say(`[devcontainer] warning: remoteUser ${spec.remoteUser} does not exist in the image`)}; fi`,
    );
  }
  lines.push("mkdir -p /workspace", "cd /workspace");
  for (const command of spec.commands) {
    lines.push(say(`[devcontainer] ${command.key}`));
    // its own shell, as VS Code runs it (sh -c): none of this script's `set -eu`, and its `cd` or `exit` stays its own
    lines.push(
      `/bin/sh -c ${shellQuote(command.script)} || { status=$?; ${say(`[devcontainer] ${command.key} failed with exit code`)} "$status" >&2; exit "$status"; }`,
    );
  }
  return lines.join("\n");
}
