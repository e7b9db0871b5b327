"use client";
import { useEffect, useSyncExternalStore } from "react";
import { io, type Socket } from "socket.io-client";
import type { RecordedEvent } from "../../shared/event-catalog";
import { serverToClient } from "../../shared/event-catalog";

let socket: Socket | null = null;

function getSocket(): Socket {
  socket ??= io({ path: "/socket.io", withCredentials: true, transports: ["websocket", "polling"] });
  return socket;
}

/** Subscribes to a room (system, project:ID, study:ID) while the component is mounted. */
export function useRoomEvents(room: string, onEvent: (event: RecordedEvent) => void): void {
  useEffect(() => {
    const s = getSocket();
    const join = () => s.emit("subscribe", { room });
    join();
    s.on("connect", join);
    s.on(serverToClient.event, onEvent);
    return () => {
      s.off("connect", join);
      s.off(serverToClient.event, onEvent);
      s.emit("unsubscribe", { room });
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
  return useSyncExternalStore(subscribeConnection, () => getSocket().connected, () => false);
}
