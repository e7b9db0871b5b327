import path from "node:path";
import { locateCodexBinary } from "../src/server/core/agents/codex-binary";
import { packageRoot } from "../src/lib/package-info";
import { LABEL } from "../src/server/core/runtime/container-spec";
import type { UnixUser } from "../src/server/core/runtime/container-user";
import { createDockerRuntime, type ContainerRuntime } from "../src/server/core/runtime/docker-runtime";
import { resolveHostCaBundle } from "../src/server/core/runtime/host-ca";
import { dataDirMountPolicy } from "../src/server/core/runtime/mount-policy";
import type { WorkerOptions } from "./main";

/** Removes every container this worker started (by its label), so none outlives it; returns how many. */
export async function removeOwnContainers(runtime: ContainerRuntime, workerId: string): Promise<number> {
  const own = (await runtime.listManagedContainers()).filter(
    (container) => container.labels[LABEL.worker] === workerId,
  );
  await Promise.all(own.map((container) => runtime.removeContainer(container.id).catch(() => undefined)));
  return own.length;
}

/** This worker's container runtime: its mount policy, host CA bundle and the user its containers run as. */
export function workerRuntime(options: WorkerOptions, hostUser: UnixUser) {
  const codex = locateCodexBinary();
  return createDockerRuntime({
    hostCaBundle: resolveHostCaBundle({ setting: options.hostCa ?? "auto" }),
    // containers run as the host user (never root unless a project asks), owning only data-dir folders
    hostUser,
    dataDir: options.dataDir,
    log: options.log,
    // containers get the data dir's folders, plus the bridge scripts and the Codex binary read-only
    mountPolicy: dataDirMountPolicy({
      dataDir: options.dataDir,
      readOnlyPaths: [path.join(packageRoot(), "assets"), ...(codex ? [path.dirname(codex.path)] : [])],
    }),
  });
}

/** A runtime that can be told to start no more containers (a stopping worker's last sweep must be the last word). */
export function closableRuntime(inner: ContainerRuntime): { runtime: ContainerRuntime; refuseContainers: () => void } {
  let refusing = false;
  const createContainer: ContainerRuntime["createContainer"] = (spec) =>
    refusing ? Promise.reject(new Error("This worker is stopping.")) : inner.createContainer(spec);
  return { runtime: { ...inner, createContainer }, refuseContainers: () => (refusing = true) };
}
