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
    s.on(serverToClient.event, enqueue);
    socket = s;
  }
  return socket;
}

/** Handlers of every mounted room subscription, each given the events of its room. */
const roomHandlers = new Set<{ room: string; onEvents: (events: RecordedEvent[]) => void }>();
let pending: RecordedEvent[] = [];
let flushScheduled = false;

/** Hands the events that arrived since the last frame to each room's handler, once per frame. */
function flush(): void {
  flushScheduled = false;
  const batch = pending;
  pending = [];
  for (const handler of [...roomHandlers]) {
    const mine = batch.filter((recorded) => roomsFor(recorded.event).includes(handler.room));
    if (mine.length > 0) handler.onEvents(mine);
  }
}

/**
 * Live events are batched per animation frame: a study of 200 running trials sends dozens of events a
 * second, and each room handler (a refetch, a log tail) runs once per frame for all of them rather than
 * once per event. A hidden tab gets no frames, so there the batch goes out every 250 ms instead.
 */
function enqueue(recorded: RecordedEvent): void {
  pending.push(recorded);
  if (flushScheduled) return;
  flushScheduled = true;
  if (typeof document !== "undefined" && document.visibilityState === "visible") requestAnimationFrame(flush);
  else setTimeout(flush, 250);
}

/**
 * Subscribes to a room (system, project:ID, study:ID) while the component is mounted, and hands it only
 * the events that belong to that room (the socket is shared by every component on the page), in order,
 * batched per animation frame.
 */
export function useRoomEvents(room: string, onEvents: (events: RecordedEvent[]) => void): void {
  useEffect(() => {
    const s = getSocket();
    const users = roomUsers.get(room) ?? 0;
    roomUsers.set(room, users + 1);
    if (users === 0 && s.connected) s.emit("subscribe", { room });
    const handler = { room, onEvents };
    roomHandlers.add(handler);
    return () => {
      roomHandlers.delete(handler);
      const left = (roomUsers.get(room) ?? 1) - 1;
      if (left > 0) roomUsers.set(room, left);
      else {
        roomUsers.delete(room);
        s.emit("unsubscribe", { room });
      }
    };
  }, [room, onEvents]);
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
