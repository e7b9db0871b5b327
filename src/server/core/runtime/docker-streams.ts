import { PassThrough } from "node:stream";
import type Docker from "dockerode";

/** Docker multiplexes stdout and stderr on one stream when there is no TTY; both go to `into`. */
export function demux(options: { docker: Docker; stream: NodeJS.ReadableStream; into: NodeJS.WritableStream }): void {
  (
    options.docker.modem as {
      demuxStream(stream: NodeJS.ReadableStream, stdout: NodeJS.WritableStream, stderr: NodeJS.WritableStream): void;
    }
  ).demuxStream(options.stream, options.into, options.into);
}

/** A sink that hands every chunk of demultiplexed output to `onText` as UTF-8. */
export function textSink(onText: (text: string) => void): PassThrough {
  const sink = new PassThrough();
  sink.on("data", (chunk: Buffer) => onText(chunk.toString("utf8")));
  return sink;
}

export function envList(env: Record<string, string> | undefined): string[] {
  return Object.entries(env ?? {}).map(([key, value]) => `${key}=${value}`);
}
