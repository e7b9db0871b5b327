import type Docker from "dockerode";
import { DEFAULT_OPEN_FILES, toDockerLabels, type ContainerSpec, type Mount } from "./container-spec";
import { idsText, type ContainerIdentity } from "./container-user";
import { watchDisk, type DiskOverrun } from "./disk-budget";
import { demux, envList, textSink } from "./docker-streams";

/**
 * An anonymous `local` volume that mounts overlayfs: `hostPath` (and `lowerDirs` above it) below, the
 * container's writes in `upperDir`. It carries the container's labels, so one a crash left behind is found
 * (and removed by the reconciler) like the container. No redirects and no metacopy (the kernel's defaults,
 * and what `userxattr` implies): a renamed or chmod-ed file is copied up whole.
 */
function overlayVolume(
  mount: Mount,
  overlay: NonNullable<Mount["overlay"]>,
  labels: Record<string, string>,
): Docker.MountSettings {
  const lowerdir = [...(overlay.lowerDirs ?? []), mount.hostPath].join(":");
  return {
    Type: "volume",
    Source: "", // anonymous: removed with the container
    Target: mount.containerPath,
    ReadOnly: mount.readOnly,
    VolumeOptions: {
      // nothing of the image is copied into the volume: it shows the lower layer and the container's writes only
      NoCopy: true,
      Labels: labels,
      DriverConfig: {
        Name: "local",
        Options: {
          type: "overlay",
          device: "overlay",
          o: `lowerdir=${lowerdir},upperdir=${overlay.upperDir},workdir=${overlay.workDir}${overlay.userXattr ? ",userxattr" : ""}`,
        },
      },
    },
  };
}

/**
 * The engine's create options for a spec: its user and capabilities (container-user.ts: `CapDrop: ALL`
 * and only what root needs for packages), no new privileges, limits and the `nofile` ulimit, the network
 * (`none`, or the project's own bridge) and bind mounts.
 */
export function containerCreateOptions(options: {
  spec: ContainerSpec;
  mounts: Mount[];
  identity: ContainerIdentity;
  /** The project's bridge for network mode `internet`. */
  networkName: string | null;
}): Docker.ContainerCreateOptions {
  const { spec, mounts, identity } = options;
  const openFiles = spec.limits.openFiles ?? DEFAULT_OPEN_FILES;
  return {
    Image: spec.image,
    Cmd: spec.command,
    User: idsText(identity.user),
    Env: envList(spec.env),
    ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
    Labels: toDockerLabels(spec.labels),
    Tty: spec.tty ?? false,
    // a terminal session's process reads its keyboard from stdin, which stays open between attachments
    ...(spec.tty ? { OpenStdin: true, StdinOnce: false, AttachStdin: true } : {}),
    AttachStdout: true,
    AttachStderr: true,
    HostConfig: {
      Init: true,
      NanoCpus: Math.round(spec.limits.cpus * 1e9),
      Memory: spec.limits.memoryBytes,
      MemorySwap: spec.limits.memoryBytes + spec.limits.swapBytes,
      PidsLimit: spec.limits.pids,
      Ulimits: [{ Name: "nofile", Soft: openFiles, Hard: openFiles }],
      CapDrop: ["ALL"],
      CapAdd: identity.capAdd,
      SecurityOpt: ["no-new-privileges:true"],
      // none: Docker's null network, loopback only — no interface, no route, nothing reachable
      NetworkMode: spec.network === "none" ? "none" : (options.networkName ?? "none"),
      // With no network a name lookup can never succeed, but musl's resolver (the static Codex
      // binary uses it) waits its full timeout (5 s) before saying so: make it give up at once.
      ...(spec.network === "none" ? { DnsOptions: ["timeout:0", "attempts:1"] } : {}),
      Binds: mounts
        .filter((mount) => !mount.overlay)
        .map((mount) => `${mount.hostPath}:${mount.containerPath}:${mount.readOnly ? "ro" : "rw"}`),
      Mounts: mounts.flatMap((mount) =>
        mount.overlay ? [overlayVolume(mount, mount.overlay, toDockerLabels(spec.labels))] : [],
      ),
      Privileged: false,
    },
  };
}

/** Starts the container (if not yet), streams its output until it exits, and stops it past `timeoutMs` or its disk budget. */
export async function runToExit(options: {
  docker: Docker;
  id: string;
  onOutput: (chunk: string) => void;
  timeoutMs?: number;
  /** Starts the container (the runtime's start, which recreates a project bridge that went away). */
  start: () => Promise<void>;
  /** What the container wrote so far, and its budget (disk-budget.ts). */
  disk?: { budgetBytes: number; intervalMs: number; measure: () => Promise<number> } | null;
}): Promise<{ exitCode: number; timedOut: boolean; overDisk: DiskOverrun | null }> {
  const container = options.docker.getContainer(options.id);
  // a container not started yet has no output to replay: Docker's replay (logs) racing the live stream of a
  // container that starts meanwhile delivered output twice under load
  const started = (await container.inspect()).State.Status !== "created";
  const stream = await container.attach({ stream: true, stdout: true, stderr: true, logs: started });
  const ended = new Promise<void>((resolve) => stream.once("end", () => resolve()));
  demux({ docker: options.docker, stream, into: textSink(options.onOutput) });
  await options.start();
  let timedOut = false;
  let overDisk: DiskOverrun | null = null;
  const stop = () => void container.stop({ t: 2 }).catch(() => undefined);
  const timer = options.timeoutMs
    ? setTimeout(() => {
        timedOut = true;
        stop();
      }, options.timeoutMs)
    : null;
  const unwatch = options.disk
    ? watchDisk({
        ...options.disk,
        onOverrun: (overrun) => {
          overDisk ??= overrun;
          stop();
        },
      })
    : () => undefined;
  const result = (await container.wait()) as { StatusCode: number };
  if (timer) clearTimeout(timer);
  unwatch();
  // let the attached stream deliver its last bytes
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([ended, new Promise<void>((resolve) => (grace = setTimeout(resolve, 1000)))]);
  clearTimeout(grace);
  return { exitCode: result.StatusCode, timedOut: timedOut && !overDisk, overDisk };
}
