import type { Server as SocketServer, Socket } from "socket.io";
import {
  terminalAttachSchema,
  terminalEvents,
  terminalInputSchema,
  terminalResizeSchema,
  type SessionView,
  type TerminalOutput,
  type TerminalScreen,
  type TerminalSizeMessage,
} from "../../../shared/session-schemas";
import type { Identity } from "../../../shared/roles";
import type { SessionService } from "../sessions/session-service";
import type { ScreenNow } from "../sessions/terminal-hub";
import { createTerminalSizing, type SizeNotice, type TerminalSize } from "../sessions/terminal-sizing";
import { messageOf } from "../../../shared/error-message";

const room = (sessionId: string) => `terminal:${sessionId}`;

/**
 * What one socket watches: attach sends the session's screen and joins its room (once, however often the
 * browser asks); detach leaves it. A page that remounts its terminal detaches and attaches again before the
 * first screen is out: it gets one screen and counts as one watcher. `changed` says the watcher count moved;
 * `sizing` hears each window that opens (with the size its screen has) and goes.
 */
function createWatching(options: {
  socket: Socket;
  sessions: SessionService;
  changed: (sessionId: string) => void;
  sizing: { join: (sessionId: string, size: TerminalSize) => void; leave: (sessionId: string) => void };
  /** Sends the room what output is still gathered, so a socket that joins after it gets none of it twice. */
  flush: (sessionId: string) => void;
}) {
  const { socket, sessions } = options;
  const watching = new Set<string>();
  /** attaches whose screen is on its way, and whether the browser still wants it */
  const attaching = new Map<string, boolean>();
  const joined = (sessionId: string, screen: ScreenNow | null, session: SessionView) => {
    const wanted = attaching.get(sessionId);
    attaching.delete(sessionId);
    if (!wanted) return;
    options.flush(sessionId);
    // inside `ready`: no byte after this screen reaches the room before the socket is in it
    const size = { columns: screen?.columns ?? session.columns, rows: screen?.rows ?? session.rows };
    socket.emit(terminalEvents.screen, {
      sessionId,
      data: screen?.data ?? "",
      ...size,
      state: session.state,
    } satisfies TerminalScreen);
    // bytes the room already got that the server's screen does not hold yet
    if (screen?.pending)
      socket.emit(terminalEvents.output, { sessionId, data: screen.pending } satisfies TerminalOutput);
    void socket.join(room(sessionId));
    watching.add(sessionId);
    sessions.watch(sessionId, 1);
    options.sizing.join(sessionId, size);
    options.changed(sessionId);
  };
  const leave = (sessionId: string) => {
    if (!watching.delete(sessionId)) return;
    void socket.leave(room(sessionId));
    sessions.watch(sessionId, -1);
    options.sizing.leave(sessionId);
    options.changed(sessionId);
  };
  return {
    has: (sessionId: string) => watching.has(sessionId),
    attach(sessionId: string) {
      if (watching.has(sessionId)) return;
      const pending = attaching.has(sessionId);
      attaching.set(sessionId, true);
      if (pending) return;
      sessions
        .screen(sessionId, (screen, session) => joined(sessionId, screen, session))
        .catch((error: unknown) => {
          attaching.delete(sessionId);
          socket.emit(terminalEvents.state, {
            sessionId,
            state: "finished",
            reason: messageOf(error),
          });
        });
    },
    detach(sessionId: string) {
      if (attaching.has(sessionId)) attaching.set(sessionId, false);
      else leave(sessionId);
    },
    detachAll() {
      attaching.clear();
      for (const sessionId of [...watching]) leave(sessionId);
    },
  };
}

/** A message's worth of output: a 10 MB `cat` is some 160 messages, not thousands of 4 KiB ones. */
const BATCH_BYTES = 64 * 1024;

/**
 * Output gathered per session until the event loop turns (or a batch is full), then sent as one message:
 * a keystroke's echo waits for no timer, and a flood costs browsers far fewer messages and writes.
 */
function createOutputBatches(send: (sessionId: string, data: Uint8Array) => void) {
  const gathered = new Map<string, { chunks: Uint8Array[]; bytes: number }>();
  const flush = (sessionId: string) => {
    const batch = gathered.get(sessionId);
    if (!batch) return;
    gathered.delete(sessionId);
    send(sessionId, batch.chunks.length === 1 ? (batch.chunks[0] as Uint8Array) : Buffer.concat(batch.chunks));
  };
  return {
    add: (sessionId: string, data: Uint8Array) => {
      const batch = gathered.get(sessionId);
      if (!batch) {
        gathered.set(sessionId, { chunks: [data], bytes: data.byteLength });
        setImmediate(() => flush(sessionId));
        return;
      }
      batch.chunks.push(data);
      batch.bytes += data.byteLength;
      if (batch.bytes >= BATCH_BYTES) flush(sessionId);
    },
    flush,
  };
}

/**
 * The terminal over socket.io: `terminal.attach` answers with the session's screen and joins its live
 * output; keystrokes are taken from admins only, and sizes from the admin window in control of the size
 * (terminal-sizing.ts; a viewer's are dropped here, whatever its browser sends). Payloads are validated; a
 * bad one is ignored.
 */
export function createTerminalSocket(io: SocketServer) {
  // a session is "detached" while nobody watches it: lists and pages refetch when a browser comes or goes
  const watchersChanged = (sessionId: string) => io.emit(terminalEvents.sessionsChanged, { sessionId });
  const output = createOutputBatches((sessionId, data) =>
    io.to(room(sessionId)).emit(terminalEvents.output, { sessionId, data } satisfies TerminalOutput),
  );
  const sizing = createTerminalSizing();
  const tell = (sessionId: string, notices: SizeNotice[]) => {
    for (const { watcherId, view } of notices)
      io.to(watcherId).emit(terminalEvents.size, { sessionId, ...view } satisfies TerminalSizeMessage);
  };
  return {
    output: output.add,
    changed: (session: SessionView) => {
      output.flush(session.id);
      io.to(room(session.id)).emit(terminalEvents.state, {
        sessionId: session.id,
        state: session.state,
        reason: session.reason,
      });
      io.emit(terminalEvents.sessionsChanged, { sessionId: session.id });
    },
    /** Serves a connected, authenticated socket's terminal events. */
    serve(socket: Socket, sessions: SessionService, identity: Identity) {
      const isAdmin = identity.role === "admin";
      const thisWindow = { id: socket.id, admin: isAdmin, browser: identity.sessionId ?? null };
      const watching = createWatching({
        socket,
        sessions,
        changed: watchersChanged,
        flush: output.flush,
        sizing: {
          join: (sessionId, size) => tell(sessionId, sizing.join(sessionId, thisWindow, size)),
          leave: (sessionId) => tell(sessionId, sizing.leave(sessionId, socket.id)),
        },
      });
      socket.on(terminalEvents.attach, (payload: unknown) => {
        const parsed = terminalAttachSchema.safeParse(payload);
        if (parsed.success) watching.attach(parsed.data.sessionId);
      });
      socket.on(terminalEvents.detach, (payload: unknown) => {
        const parsed = terminalAttachSchema.safeParse(payload);
        if (parsed.success) watching.detach(parsed.data.sessionId);
      });
      socket.on(terminalEvents.input, (payload: unknown) => {
        const parsed = terminalInputSchema.safeParse(payload);
        if (!isAdmin || !parsed.success || !watching.has(parsed.data.sessionId)) return;
        sessions.input(parsed.data.sessionId, parsed.data.data);
      });
      socket.on(terminalEvents.resize, (payload: unknown) => {
        const parsed = terminalResizeSchema.safeParse(payload);
        if (!isAdmin || !parsed.success || !watching.has(parsed.data.sessionId)) return;
        const { sessionId, columns, rows, claim } = parsed.data;
        const decision = sizing.request(sessionId, socket.id, claim ?? false);
        tell(sessionId, decision.notices);
        if (!decision.allowed) return;
        void sessions.resize({ sessionId, columns, rows }).then(
          (applied) => (applied ? tell(sessionId, sizing.resized(sessionId, { columns, rows })) : undefined),
          () => undefined,
        );
      });
      socket.on("disconnect", () => watching.detachAll());
    },
  };
}
