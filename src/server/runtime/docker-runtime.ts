import os from "node:os";
import { PassThrough } from "node:stream";
import Docker from "dockerode";
import { checkMounts, LABEL, toDockerLabels, type ContainerSpec } from "./container-spec";

/**
 * The only module that imports dockerode. Everything else talks to the container runtime through
 * this narrow interface.
 */
export interface ContainerSummary {
  id: string;
  labels: Record<string, string>;
  state: string;
}

export interface ImageInfo {
  id: string;
  sizeBytes: number;
  architecture: string;
  labels: Record<string, string>;
}

export interface ContainerRuntime {
  /** Engine version, or a readable error when the engine cannot be reached. */
  version(): Promise<{ version: string; apiVersion: string; os: string; arch: string }>;
  createContainer(spec: ContainerSpec): Promise<string>;
  startContainer(id: string): Promise<void>;
  /** Streams combined stdout/stderr lines until the container exits; resolves to the exit code. */
  runToExit(
    id: string,
    onOutput: (chunk: string) => void,
    options?: { timeoutMs?: number },
  ): Promise<{ exitCode: number; timedOut: boolean }>;
  stopContainer(id: string, options?: { timeoutSeconds?: number }): Promise<void>;
  removeContainer(id: string): Promise<void>;
  commitContainer(
    id: string,
    options: { repository: string; tag: string; labels: Record<string, string> },
  ): Promise<string>;
  inspectImage(reference: string): Promise<ImageInfo | null>;
  removeImage(reference: string): Promise<void>;
  listManagedContainers(): Promise<ContainerSummary[]>;
  /** Runs a command in a running container and collects its output (no TTY). */
  exec(
    id: string,
    command: string[],
    options?: { env?: Record<string, string>; workingDir?: string },
  ): Promise<{ exitCode: number; output: string }>;
  /** Opens an interactive TTY process in a running container: a two-way stream plus resize (terminal sessions). */
  execTty(
    id: string,
    command: string[],
    options?: { env?: Record<string, string>; columns?: number; rows?: number },
  ): Promise<TtyProcess>;
}

export interface TtyProcess {
  stream: NodeJS.ReadWriteStream;
  resize(columns: number, rows: number): Promise<void>;
  /** Exit code once the process has ended (null while running). */
  exitCode(): Promise<number | null>;
}

export interface DockerRuntimeOptions {
  /** unix socket path; defaults to DOCKER_HOST handling in dockerode, else /var/run/docker.sock */
  socketPath?: string;
  timeoutMs?: number;
}

export const DOCKER_HINT =
  "Start the Docker engine (Linux: sudo systemctl start docker, or `sudo dockerd &`; macOS/Windows: open Docker Desktop) and make sure this user may use it (member of the docker group), or set DOCKER_HOST.";

function envList(env: Record<string, string> | undefined): string[] {
  return Object.entries(env ?? {}).map(([key, value]) => `${key}=${value}`);
}

function isNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && (error as { statusCode?: number }).statusCode === 404;
}

export function createDockerRuntime(options: DockerRuntimeOptions = {}): ContainerRuntime {
  const docker = new Docker({
    ...(options.socketPath ? { socketPath: options.socketPath } : {}),
    timeout: options.timeoutMs ?? 0,
  });
  /** Docker multiplexes stdout and stderr on one stream when there is no TTY; both go to `into`. */
  const demux = (stream: NodeJS.ReadableStream, into: NodeJS.WritableStream) =>
    (
      docker.modem as {
        demuxStream(stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void;
      }
    ).demuxStream(stream, into, into);
  const versionClient = new Docker({
    ...(options.socketPath ? { socketPath: options.socketPath } : {}),
    timeout: options.timeoutMs ?? 5000,
  });

  return {
    async version() {
      try {
        const info = await versionClient.version();
        return { version: info.Version, apiVersion: info.ApiVersion, os: info.Os, arch: info.Arch };
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new Error(`Docker engine not reachable (${reason}). ${DOCKER_HINT}`, { cause: error });
      }
    },

    async createContainer(spec) {
      const mounts = spec.mounts ?? [];
      checkMounts(mounts, os.homedir());
      const container = await docker.createContainer({
        Image: spec.image,
        Cmd: spec.command,
        Env: envList(spec.env),
        ...(spec.workingDir ? { WorkingDir: spec.workingDir } : {}),
        Labels: toDockerLabels(spec.labels),
        Tty: spec.tty ?? false,
        AttachStdout: true,
        AttachStderr: true,
        HostConfig: {
          Init: true,
          NanoCpus: Math.round(spec.limits.cpus * 1e9),
          Memory: spec.limits.memoryBytes,
          MemorySwap: spec.limits.memoryBytes + spec.limits.swapBytes,
          PidsLimit: spec.limits.pids,
          SecurityOpt: ["no-new-privileges:true"],
          // none: Docker's null network, loopback only — no interface, no route, nothing reachable
          NetworkMode: spec.network === "none" ? "none" : "bridge",
          // With no network a name lookup can never succeed, but musl's resolver (the static Codex
          // binary uses it) waits its full timeout (5 s) before saying so: make it give up at once.
          ...(spec.network === "none" ? { DnsOptions: ["timeout:0", "attempts:1"] } : {}),
          Binds: mounts.map((mount) => `${mount.hostPath}:${mount.containerPath}:${mount.readOnly ? "ro" : "rw"}`),
          Privileged: false,
        },
      });
      return container.id;
    },

    async startContainer(id) {
      await docker.getContainer(id).start();
    },

    async runToExit(id, onOutput, runOptions = {}) {
      const container = docker.getContainer(id);
      const stream = await container.attach({ stream: true, stdout: true, stderr: true, logs: true });
      const ended = new Promise<void>((resolve) => stream.once("end", () => resolve()));
      const output = new PassThrough();
      output.on("data", (chunk: Buffer) => onOutput(chunk.toString("utf8")));
      demux(stream, output);
      await container.start().catch((error: unknown) => {
        // 304: already started
        if ((error as { statusCode?: number }).statusCode !== 304) throw error;
      });
      let timedOut = false;
      const timer = runOptions.timeoutMs
        ? setTimeout(() => {
            timedOut = true;
            void container.stop({ t: 2 }).catch(() => undefined);
          }, runOptions.timeoutMs)
        : null;
      const result = (await container.wait()) as { StatusCode: number };
      if (timer) clearTimeout(timer);
      // let the attached stream deliver its last bytes
      let grace: NodeJS.Timeout | undefined;
      await Promise.race([ended, new Promise<void>((resolve) => (grace = setTimeout(resolve, 1000)))]);
      clearTimeout(grace);
      return { exitCode: result.StatusCode, timedOut };
    },

    async stopContainer(id, stopOptions = {}) {
      try {
        await docker.getContainer(id).stop({ t: stopOptions.timeoutSeconds ?? 5 });
      } catch (error) {
        const status = (error as { statusCode?: number }).statusCode;
        if (status !== 304 && status !== 404) throw error;
      }
    },

    async removeContainer(id) {
      try {
        await docker.getContainer(id).remove({ force: true, v: true });
      } catch (error) {
        if (!isNotFound(error) && !/already in progress/.test(String(error))) throw error;
      }
    },

    async commitContainer(id, commitOptions) {
      const result = (await docker.getContainer(id).commit({
        repo: commitOptions.repository,
        tag: commitOptions.tag,
        pause: true,
        changes: Object.entries(commitOptions.labels).map(([key, value]) => `LABEL ${key}=${JSON.stringify(value)}`),
      })) as { Id: string };
      return result.Id;
    },

    async inspectImage(reference) {
      try {
        const info = await docker.getImage(reference).inspect();
        return { id: info.Id, sizeBytes: info.Size, architecture: info.Architecture, labels: info.Config.Labels ?? {} };
      } catch (error) {
        if (isNotFound(error)) return null;
        throw error;
      }
    },

    async removeImage(reference) {
      try {
        await docker.getImage(reference).remove({ noprune: false });
      } catch (error) {
        if (!isNotFound(error)) throw error;
      }
    },

    async exec(id, command, execOptions = {}) {
      const exec = await docker.getContainer(id).exec({
        Cmd: command,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        Env: envList(execOptions.env),
        ...(execOptions.workingDir ? { WorkingDir: execOptions.workingDir } : {}),
      });
      const stream = await exec.start({ hijack: true, stdin: false });
      let output = "";
      const sink = new PassThrough();
      sink.on("data", (chunk: Buffer) => (output += chunk.toString("utf8")));
      demux(stream, sink);
      await new Promise<void>((resolve, reject) => {
        stream.once("end", () => resolve());
        stream.once("error", reject);
      });
      const info = await exec.inspect();
      return { exitCode: info.ExitCode ?? -1, output };
    },

    async execTty(id, command, ttyOptions = {}) {
      const exec = await docker.getContainer(id).exec({
        Cmd: command,
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: true,
        Env: envList(ttyOptions.env),
      });
      const stream = await exec.start({ hijack: true, stdin: true, Tty: true });
      if (ttyOptions.columns && ttyOptions.rows)
        await exec.resize({ w: ttyOptions.columns, h: ttyOptions.rows }).catch(() => undefined);
      return {
        stream,
        resize: async (columns, rows) => {
          await exec.resize({ w: columns, h: rows });
        },
        exitCode: async () => {
          const info = await exec.inspect();
          return info.Running ? null : (info.ExitCode ?? null);
        },
      };
    },

    async listManagedContainers() {
      const containers = await docker.listContainers({ all: true, filters: { label: [`${LABEL.managed}=true`] } });
      return containers.map((c) => ({ id: c.Id, labels: c.Labels, state: c.State }));
    },
  };
}
