/**
 * A long-running process must outlive the reader of its stdout and stderr: a parent that exited, a
 * closed pipe, a closed terminal. Node reports a failed write as an 'error' event on the stream; with
 * no listener that is an uncaught exception, which kills the process — or, under Next.js (whose
 * uncaughtException handler logs with console.error to the same broken stream), loops at 100 % CPU.
 *
 * After `guardStandardStreams()` a failed write is dropped: the stream is marked broken, later writes
 * to it are skipped, and nothing is thrown.
 */
const broken = new WeakSet<NodeJS.WriteStream>();
const guarded = new WeakSet<NodeJS.WriteStream>();

export function guardStandardStreams(): void {
  for (const stream of [process.stdout, process.stderr]) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    stream.on("error", () => broken.add(stream));
  }
}

/** Writes unless the stream is known to be broken; never throws. */
export function writeQuietly(stream: NodeJS.WriteStream, text: string): void {
  if (broken.has(stream) || stream.destroyed || !stream.writable) return;
  try {
    stream.write(text);
  } catch {
    broken.add(stream);
  }
}
