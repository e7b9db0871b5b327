import type Docker from "dockerode";
import { DEFAULT_OPEN_FILES, toDockerLabels, type ContainerSpec, type Mount } from "./container-spec";
import { idsText, type ContainerIdentity } from "./container-user";
import { watchDisk, type DiskOverrun } from "./disk-budget";
import { envList } from "./docker-streams";
import type { ContainerLimits, LimitsWatchdog } from "./limits-watchdog";
import { boundedTextSink, frameDemuxer } from "./output-flow";

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

/** The engine's own log of a container's output (replayed when attaching to one already started) stops here. */
const CONTAINER_LOG_MAX_SIZE = "16m";

/**
 * The engine's create options for a spec: its user and capabilities (container-user.ts: `CapDrop: ALL`
 * and only what root needs for packages), no new privileges, limits and the `nofile` ulimit, the network
 * (`none`, or the project's own bridge) and bind mounts.
 */
export function containerCreateOptions(options: {
  spec: ContainerSpec;
  mounts: Mount[];
  identity: ContainerIdentity;
  /** The id of the project's bridge for network mode `internet` (never its name, which a twin may share). */
  networkId: string | null;
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
      NetworkMode: spec.network === "none" ? "none" : (options.networkId ?? "none"),
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
      // what the engine keeps of the output for a later attach's replay, bounded: a flood never fills its disk
      LogConfig: { Type: "json-file", Config: { "max-size": CONTAINER_LOG_MAX_SIZE, "max-file": "1" } },
    },
    // the endpoint names the id too: else the engine looks the network up by name again at start
    ...(spec.network === "internet" && options.networkId
      ? { NetworkingConfig: { EndpointsConfig: { [options.networkId]: { NetworkID: options.networkId } } } }
      : {}),
  };
}

/** The in-loop holding of limits, for a runtime whose watchdog thread cannot run (limits-watchdog.ts). */
function holdInLoop(options: {
  timeoutMs: number | null;
  disk: { budgetBytes: number; intervalMs: number; measure: () => Promise<number> } | null;
  stop: () => void;
  verdict: { timedOut: boolean; overDisk: DiskOverrun | null };
}): () => void {
  const { verdict, disk } = options;
  const timer = options.timeoutMs
    ? setTimeout(() => {
        verdict.timedOut = true;
        options.stop();
      }, options.timeoutMs)
    : null;
  const unwatch = disk
    ? watchDisk({
        budgetBytes: disk.budgetBytes,
        intervalMs: disk.intervalMs,
        measure: disk.measure,
        onOverrun: (overrun) => {
          verdict.overDisk ??= overrun;
          options.stop();
        },
      })
    : () => undefined;
  return () => {
    if (timer) clearTimeout(timer);
    unwatch();
  };
}

/**
 * Starts the container (if not yet), streams its output until it exits, and stops it past `timeoutMs` or
 * its disk budget. The limits are held by the runtime's watchdog thread (limits-watchdog.ts), so a busy
 * event loop delays neither; the output is read back-pressured and bounded (output-flow.ts), so one
 * container's flood costs this loop at most its allowance.
 */
/**
 * How long the attached stream may take to deliver its last bytes after the container exited. It ends by itself
 * as soon as they are in (milliseconds on a calm host); a busy one took over a second, and a test runner's
 * summary — the last lines — was lost: the verdict fell back to the exit code.
 */
const OUTPUT_GRACE_MS = 15_000;

export async function runToExit(options: {
  docker: Docker;
  id: string;
  onOutput: (chunk: string) => void;
  timeoutMs?: number;
  /** Starts the container (the runtime's start, which recreates a project bridge that went away). */
  start: () => Promise<void>;
  /** What the container wrote so far, and its budget (disk-budget.ts). */
  disk?: (NonNullable<ContainerLimits["disk"]> & { measure: () => Promise<number> }) | null;
  /** The runtime's watchdog; null: the limits are held on this loop (as a last resort). */
  watchdog: LimitsWatchdog | null;
}): Promise<{ exitCode: number; timedOut: boolean; overDisk: DiskOverrun | null; ranMs: number | null }> {
  const container = options.docker.getContainer(options.id);
  // a container not started yet has no output to replay: Docker's replay (logs) racing the live stream of a
  // container that starts meanwhile delivered output twice under load
  const started = (await container.inspect()).State.Status !== "created";
  const stream = (await container.attach({
    stream: true,
    stdout: true,
    stderr: true,
    logs: started,
  })) as NodeJS.ReadableStream & { destroy?: () => void };
  const sink = boundedTextSink({ onText: options.onOutput });
  const ended = new Promise<void>((resolve) => {
    sink.once("finish", () => resolve());
    sink.once("error", () => resolve());
  });
  const demuxer = frameDemuxer();
  stream.on("error", () => demuxer.end());
  stream.pipe(demuxer).pipe(sink);
  const { disk } = options;
  const timeoutMs = options.timeoutMs ?? null;
  const watch = options.watchdog?.watch(options.id, {
    timeoutMs,
    disk: disk
      ? { budgetBytes: disk.budgetBytes, baseline: disk.baseline, folders: disk.folders, intervalMs: disk.intervalMs }
      : null,
  });
  const verdict = { timedOut: false, overDisk: null as DiskOverrun | null };
  const stop = () => void container.stop({ t: 2 }).catch(() => undefined);
  const release = watch ? () => undefined : holdInLoop({ timeoutMs, disk: disk ?? null, stop, verdict });
  let result: { StatusCode: number };
  try {
    await options.start();
    watch?.started();
    result = (await container.wait()) as { StatusCode: number };
  } finally {
    release();
    const decided = await watch?.finish();
    if (decided) Object.assign(verdict, decided);
  }
  // what is in flight is read at once; the attached stream gets a moment to deliver its last bytes
  sink.unbound();
  let grace: NodeJS.Timeout | undefined;
  await Promise.race([ended, new Promise<void>((resolve) => (grace = setTimeout(resolve, OUTPUT_GRACE_MS)))]);
  clearTimeout(grace);
  stream.destroy?.();
  return {
    exitCode: result.StatusCode,
    timedOut: verdict.timedOut && !verdict.overDisk,
    overDisk: verdict.overDisk,
    ranMs: await ranMs(container),
  };
}

/** How long the container ran, by the engine's clock (null when it cannot say). */
async function ranMs(container: Docker.Container): Promise<number | null> {
  const state = (await container.inspect().catch(() => null))?.State;
  const ran = Date.parse(state?.FinishedAt ?? "") - Date.parse(state?.StartedAt ?? "");
  return Number.isFinite(ran) && ran >= 0 ? ran : null;
}
