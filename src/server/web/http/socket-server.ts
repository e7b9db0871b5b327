import type http from "node:http";
import { Server as SocketServer } from "socket.io";
import { serverToClient, subscribeSchema, type RecordedEvent } from "../../../shared/event-catalog";
import type { Identity } from "../../../shared/roles";
import type { AccessService } from "../access/access-service";
import type { SessionService } from "../sessions/session-service";
import type { SessionView } from "../../../shared/session-schemas";
import { createTerminalSocket } from "./terminal-socket";
import { credentialsFromHeaders, isAllowedHost, isAllowedOrigin, type GuardOptions } from "../access/request-guard";
import { asError } from "../../../shared/error-message";

/**
 * socket.io on the web server: the handshake is refused for a foreign Host (DNS rebinding) or Origin
 * (cross-site), a connection without a valid token is refused, and a client joins and leaves the
 * catalog's rooms with `subscribe` / `unsubscribe`.
 */
export interface SocketLayer {
  /** Sends a recorded event to these rooms at once (a socket in several of them gets it once). */
  emit: (rooms: string[], event: RecordedEvent) => void;
  /** Drops the open sockets of a revoked viewer link (its id) or browser session (its id). */
  disconnectSubject: (subjectOrSession: string) => void;
  /** Starts authenticating connections (the services exist only once the core is open); serves terminals. */
  authenticate(access: AccessService, sessions?: SessionService): void;
  /** A session's output bytes, to the browsers watching it. */
  terminalOutput: (sessionId: string, data: Uint8Array) => void;
  /** A session changed: its watchers get its state, every browser refetches its lists. */
  sessionChanged: (session: SessionView) => void;
  close(): Promise<void>;
}

export function createSocketLayer(options: { httpServer: http.Server; guard: GuardOptions }): SocketLayer {
  const io = new SocketServer(options.httpServer, {
    serveClient: false,
    path: "/socket.io",
    allowRequest: (req, callback) =>
      callback(
        null,
        isAllowedHost(req.headers.host, options.guard) && isAllowedOrigin(req.headers.origin, options.guard),
      ),
  });
  const identityOf = (socket: { data: unknown }) => (socket.data as { identity?: Identity }).identity;
  const terminals = createTerminalSocket(io);

  return {
    emit: (rooms, event) => void io.to(rooms).emit(serverToClient.event, event),
    terminalOutput: terminals.output,
    sessionChanged: terminals.changed,
    disconnectSubject(id) {
      for (const socket of io.sockets.sockets.values()) {
        const identity = identityOf(socket);
        if (identity?.subject === id || identity?.sessionId === id) socket.disconnect(true);
      }
    },
    authenticate(access, sessions) {
      io.use((socket, next) => {
        access
          .identify(credentialsFromHeaders(socket.request.headers))
          .then((identity) => {
            if (!identity) return next(new Error("unauthorized: open the URL printed by invariant-web"));
            (socket.data as { identity?: Identity }).identity = identity;
            next();
          })
          .catch((error: unknown) => next(asError(error)));
      });
      io.on("connection", (socket) => {
        const identity = identityOf(socket);
        if (sessions && identity) terminals.serve(socket, sessions, identity);
        socket.on("subscribe", (payload: unknown) => {
          const parsed = subscribeSchema.safeParse(payload);
          if (parsed.success) void socket.join(parsed.data.room);
        });
        socket.on("unsubscribe", (payload: unknown) => {
          const parsed = subscribeSchema.safeParse(payload);
          if (parsed.success) void socket.leave(parsed.data.room);
        });
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        void io.close(() => resolve());
        options.httpServer.closeAllConnections();
      }),
  };
}
