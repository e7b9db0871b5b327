"use client";
import { useEffect, useSyncExternalStore } from "react";
import { io, type Socket } from "socket.io-client";
import type { RecordedEvent } from "../../shared/event-catalog";
import { roomsFor, serverToClient } from "../../shared/event-catalog";

let socket: Socket | null = null;
/** How many mounted components want each room: the socket leaves a room only when the last one goes. */
const roomUsers = new Map<string, number>();

/** The page's one socket.io connection (terminals use it directly). */
export function getSocket(): Socket {
  if (!socket) {
    const s = io({ path: "/socket.io", withCredentials: true, transports: ["websocket", "polling"] });
    // a reconnect is a new server-side socket: join every room still wanted
    s.on("connect", () => {
      for (const room of roomUsers.keys()) s.emit("subscribe", { room });
    });
    socket = s;
  }
  return socket;
}

/**
 * Subscribes to a room (system, project:ID, study:ID) while the component is mounted, and hands it only
 * the events that belong to that room (the socket is shared by every component on the page).
 */
export function useRoomEvents(room: string, onEvent: (event: RecordedEvent) => void): void {
  useEffect(() => {
    const s = getSocket();
    const users = roomUsers.get(room) ?? 0;
    roomUsers.set(room, users + 1);
    if (users === 0 && s.connected) s.emit("subscribe", { room });
    const handler = (recorded: RecordedEvent) => {
      if (roomsFor(recorded.event).includes(room)) onEvent(recorded);
    };
    s.on(serverToClient.event, handler);
    return () => {
      s.off(serverToClient.event, handler);
      const left = (roomUsers.get(room) ?? 1) - 1;
      if (left > 0) roomUsers.set(room, left);
      else {
        roomUsers.delete(room);
        s.emit("unsubscribe", { room });
      }
    };
  }, [room, onEvent]);
}

function subscribeConnection(notify: () => void): () => void {
  const s = getSocket();
  s.on("connect", notify);
  s.on("disconnect", notify);
  return () => {
    s.off("connect", notify);
    s.off("disconnect", notify);
  };
}

/** Whether the shared socket is connected (live events arrive); false while reconnecting and during SSR. */
export function useSocketConnected(): boolean {
  return useSyncExternalStore(
    subscribeConnection,
    () => getSocket().connected,
    () => false,
  );
}
