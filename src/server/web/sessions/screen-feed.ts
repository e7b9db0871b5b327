import type { Terminal } from "@xterm/headless";

/** Past this many bytes broadcast and not yet parsed, output is a flood (a `cat` of a big file, a build log). */
export const FLOOD_BYTES = 256 * 1024;
/** A flood is parsed once it pauses this long… */
export const FLOOD_PAUSE_MS = 20;
/** …or once this much of it is held, whichever comes first (memory per session stays bounded). */
export const HOLD_LIMIT_BYTES = 16 * 1024 * 1024;

/**
 * Feeds a session's output to the server's headless terminal, which keeps the screen for watchers who
 * join later. Everyday output (a prompt, an echo, a TUI's frame, the program's terminal queries) is
 * parsed at once. During a flood the server would parse the same bytes as the browser at the same time,
 * on the same two cores: so once `FLOOD_BYTES` wait, further bytes are held until the output pauses
 * (or `HOLD_LIMIT_BYTES` are held) and parsed then, while the browser draws. Nothing is lost meanwhile:
 * `pending()` is every byte broadcast that the screen does not hold yet, for a watcher joining mid-flood.
 */
export function createScreenFeed(terminal: Pick<Terminal, "write">) {
  /** broadcast and not yet parsed, oldest first (the held ones are its tail) */
  const unparsed: Uint8Array[] = [];
  let unparsedBytes = 0;
  let held: Uint8Array[] = [];
  let heldBytes = 0;
  let pause: NodeJS.Timeout | null = null;

  const parse = (bytes: Uint8Array) =>
    terminal.write(bytes, () => {
      unparsedBytes -= unparsed.shift()?.byteLength ?? 0;
    });
  const release = () => {
    if (pause) clearTimeout(pause);
    pause = null;
    const chunks = held;
    held = [];
    heldBytes = 0;
    for (const chunk of chunks) parse(chunk);
  };

  return {
    /** Bytes just broadcast to watchers. */
    add(bytes: Uint8Array): void {
      const flooding = held.length > 0 || unparsedBytes >= FLOOD_BYTES;
      unparsed.push(bytes);
      unparsedBytes += bytes.byteLength;
      if (!flooding) return void parse(bytes);
      held.push(bytes);
      heldBytes += bytes.byteLength;
      if (heldBytes >= HOLD_LIMIT_BYTES) return release();
      if (pause) pause.refresh();
      else pause = setTimeout(release, FLOOD_PAUSE_MS);
    },

    /** Every byte broadcast that the screen does not hold yet (null: none). */
    pending(): Uint8Array | null {
      return unparsed.length > 0 ? new Uint8Array(Buffer.concat(unparsed)) : null;
    },

    /** Parses what is held now and resolves once the screen holds every byte added so far. */
    settled(): Promise<void> {
      release();
      return new Promise((resolve) => terminal.write("", resolve));
    },

    /** Drops what is held (the terminal is going away). */
    dispose(): void {
      if (pause) clearTimeout(pause);
      pause = null;
      held = [];
    },
  };
}

export type ScreenFeed = ReturnType<typeof createScreenFeed>;
