import type Docker from "dockerode";
import type { TtyProcess } from "./container-runtime";
import { demux, envList, textSink } from "./docker-streams";

/** Runs a command in a running container and collects its output (no TTY). */
export async function execCollect(options: {
  docker: Docker;
  id: string;
  command: string[];
  env?: Record<string, string>;
  workingDir?: string;
}): Promise<{ exitCode: number; output: string }> {
  const exec = await options.docker.getContainer(options.id).exec({
    Cmd: options.command,
    AttachStdout: true,
    AttachStderr: true,
    Tty: false,
    Env: envList(options.env),
    ...(options.workingDir ? { WorkingDir: options.workingDir } : {}),
  });
  const stream = await exec.start({ hijack: true, stdin: false });
  let output = "";
  demux({ docker: options.docker, stream, into: textSink((text) => (output += text)) });
  await new Promise<void>((resolve, reject) => {
    stream.once("end", () => resolve());
    stream.once("error", reject);
  });
  const info = await exec.inspect();
  return { exitCode: info.ExitCode ?? -1, output };
}

/** Opens an interactive TTY process in a running container: a two-way stream plus resize (terminal sessions). */
export async function execTty(options: {
  docker: Docker;
  id: string;
  command: string[];
  env?: Record<string, string>;
  columns?: number;
  rows?: number;
}): Promise<TtyProcess> {
  const exec = await options.docker.getContainer(options.id).exec({
    Cmd: options.command,
    AttachStdin: true,
    AttachStdout: true,
    AttachStderr: true,
    Tty: true,
    Env: envList(options.env),
  });
  const stream = await exec.start({ hijack: true, stdin: true, Tty: true });
  if (options.columns && options.rows)
    await exec.resize({ w: options.columns, h: options.rows }).catch(() => undefined);
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
}
