import path from "node:path";
import { locateCodexBinary } from "../src/server/core/agents/codex-binary";
import { packageRoot } from "../src/lib/package-info";
import type { UnixUser } from "../src/server/core/runtime/container-user";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import type { ContainerRuntime } from "../src/server/core/runtime/container-runtime";
import { resolveHostCaBundle } from "../src/server/core/runtime/host-ca";
import { dataDirMountPolicy, type MountPolicy } from "../src/server/core/runtime/mount-policy";
import type { WorkerOptions } from "./worker-options";

/**
 * What this worker's containers may mount: the data dir's folders, the bridge scripts and the Codex binary
 * read-only, and the folder of its gateway socket (the data dir's gateway/, or the private temp folder a deep
 * data dir puts it in: see gatewaySocketPath).
 */
export function workerMountPolicy(dataDir: string, gatewaySocket: string): MountPolicy {
  const codex = locateCodexBinary();
  const policy = dataDirMountPolicy({
    dataDir,
    readOnlyPaths: [path.join(packageRoot(), "assets"), ...(codex ? [path.dirname(codex.path)] : [])],
  });
  return { ...policy, roots: [...policy.roots, path.dirname(gatewaySocket)] };
}

/** This worker's container runtime: its mount policy, host CA bundle and the user its containers run as. */
export function workerRuntime(options: WorkerOptions, hostUser: UnixUser, gatewaySocket: string) {
  return createDockerRuntime({
    hostCaBundle: resolveHostCaBundle({ setting: options.hostCa ?? "auto" }),
    // containers run as the host user (never root unless a project asks), owning only data-dir folders
    hostUser,
    dataDir: options.dataDir,
    log: options.log,
    mountPolicy: workerMountPolicy(options.dataDir, gatewaySocket),
  });
}

/**
 * A runtime that can be told to start no more containers (a stopping worker's last sweep must be the last
 * word) and commit none: a container the stop is removing is not kept as an image (Docker would answer
 * 409 "Dead"), its trial is interrupted instead.
 */
export function closableRuntime(inner: ContainerRuntime): { runtime: ContainerRuntime; refuseContainers: () => void } {
  let refusing = false;
  const stopping = () => Promise.reject(new Error("This worker is stopping."));
  const createContainer: ContainerRuntime["createContainer"] = (spec) =>
    refusing ? stopping() : inner.createContainer(spec);
  const commitContainer: ContainerRuntime["commitContainer"] = (id, options) =>
    refusing ? stopping() : inner.commitContainer(id, options);
  return { runtime: { ...inner, createContainer, commitContainer }, refuseContainers: () => (refusing = true) };
}
