import type { Server as SocketServer, Socket } from "socket.io";
import {
  terminalAttachSchema,
  terminalEvents,
  terminalInputSchema,
  terminalResizeSchema,
  type SessionView,
  type TerminalOutput,
  type TerminalScreen,
} from "../../shared/session-schemas";
import type { Identity } from "../../shared/roles";
import type { SessionService } from "../sessions/session-service";

const room = (sessionId: string) => `terminal:${sessionId}`;

/**
 * The terminal over socket.io: `terminal.attach` answers with the session's screen and joins its live
 * output; keystrokes and resizes are taken from admins only (a viewer's are dropped here, whatever its
 * browser sends). Payloads are validated; a bad one is ignored.
 */
export function createTerminalSocket(io: SocketServer) {
  return {
    output: (sessionId: string, data: Uint8Array) => {
      io.to(room(sessionId)).emit(terminalEvents.output, { sessionId, data } satisfies TerminalOutput);
    },
    changed: (session: SessionView) => {
      io.to(room(session.id)).emit(terminalEvents.state, {
        sessionId: session.id,
        state: session.state,
        reason: session.reason,
      });
      io.emit(terminalEvents.sessionsChanged, { sessionId: session.id });
    },
    /** Serves a connected, authenticated socket's terminal events. */
    serve(socket: Socket, sessions: SessionService, identity: Identity) {
      const watching = new Set<string>();
      const isAdmin = identity.role === "admin";
      socket.on(terminalEvents.attach, (payload: unknown) => {
        const parsed = terminalAttachSchema.safeParse(payload);
        if (!parsed.success || watching.has(parsed.data.sessionId)) return;
        const { sessionId } = parsed.data;
        sessions
          .screen(sessionId, (screen, session) => {
            // inside `ready`: no byte after this screen reaches the room before the socket is in it
            socket.emit(terminalEvents.screen, {
              sessionId,
              data: screen?.data ?? "",
              columns: screen?.columns ?? session.columns,
              rows: screen?.rows ?? session.rows,
              state: session.state,
            } satisfies TerminalScreen);
            // bytes the room already got that the server's screen does not hold yet
            if (screen?.pending)
              socket.emit(terminalEvents.output, { sessionId, data: screen.pending } satisfies TerminalOutput);
            void socket.join(room(sessionId));
            watching.add(sessionId);
            sessions.watch(sessionId, 1);
          })
          .catch((error: unknown) =>
            socket.emit(terminalEvents.state, {
              sessionId,
              state: "finished",
              reason: error instanceof Error ? error.message : String(error),
            }),
          );
      });
      const stopWatching = (sessionId: string) => {
        if (!watching.delete(sessionId)) return;
        void socket.leave(room(sessionId));
        sessions.watch(sessionId, -1);
      };
      socket.on(terminalEvents.detach, (payload: unknown) => {
        const parsed = terminalAttachSchema.safeParse(payload);
        if (parsed.success) stopWatching(parsed.data.sessionId);
      });
      socket.on(terminalEvents.input, (payload: unknown) => {
        const parsed = terminalInputSchema.safeParse(payload);
        if (!isAdmin || !parsed.success || !watching.has(parsed.data.sessionId)) return;
        sessions.input(parsed.data.sessionId, parsed.data.data);
      });
      socket.on(terminalEvents.resize, (payload: unknown) => {
        const parsed = terminalResizeSchema.safeParse(payload);
        if (!isAdmin || !parsed.success || !watching.has(parsed.data.sessionId)) return;
        void sessions.resize(parsed.data).then(
          () =>
            io.to(room(parsed.data.sessionId)).emit(terminalEvents.resize, {
              sessionId: parsed.data.sessionId,
              columns: parsed.data.columns,
              rows: parsed.data.rows,
            }),
          () => undefined,
        );
      });
      socket.on("disconnect", () => {
        for (const sessionId of [...watching]) stopWatching(sessionId);
      });
    },
  };
}
