"use client";
import { useSocketConnected } from "../_lib/socket";

/** A small dot that says whether live events are arriving (the socket is connected). */
export function LiveIndicator() {
  const connected = useSocketConnected();
  return (
    <span
      role="status"
      data-testid="live-indicator"
      data-connected={connected ? "true" : "false"}
      title={
        connected
          ? "Live: changes appear without reloading."
          : "Not connected: reconnecting; the page refreshes every few seconds meanwhile."
      }
      className={`inline-flex items-center gap-1.5 rounded-full border px-2 py-0.5 text-xs ${connected ? "border-ok-strong/50 text-ok-soft" : "border-warn-strong/50 text-warn-soft"}`}
    >
      <span
        aria-hidden="true"
        className={`h-1.5 w-1.5 rounded-full ${connected ? "animate-pulse bg-ok" : "bg-warn"}`}
      />
      {connected ? "live" : "offline"}
    </span>
  );
}
