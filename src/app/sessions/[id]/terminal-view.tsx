"use client";
import { useEffect, useRef, useState } from "react";
import "@xterm/xterm/css/xterm.css";
import type { TerminalState } from "../../../shared/session-schemas";
import { smallButtonClass } from "../../_components/ui";
import { connectTerminal, type TerminalCallbacks, type TerminalSizing } from "./terminal-connection";

/** Who decides the terminal's size, in words, as this window sees it. */
function sizedByWords(sizing: TerminalSizing, isAdmin: boolean): string {
  switch (sizing.sizedBy) {
    case "this-window":
      return "sized by this window";
    case "your-other-window":
      return "sized by your other window";
    case "another-admin-window":
      return isAdmin ? "sized by another admin window" : "sized by the admin's window";
    case "no-window":
      return "no admin window open: it keeps its last size";
  }
}

/** The terminal's size, who decides it, how this window shows it, and (for an admin) "Fit to this window". */
function SizeLine({
  sizing,
  canTakeControl,
  onTakeControl,
  isAdmin,
}: {
  sizing: TerminalSizing | null;
  canTakeControl: boolean;
  onTakeControl: () => void;
  isAdmin: boolean;
}) {
  if (!sizing) return null;
  const shown = sizing.overflows ? "scroll to see all of it" : sizing.fontSize < 13 ? "shown smaller to fit" : null;
  return (
    <div className="flex min-h-7 flex-wrap items-center gap-x-2 gap-y-1 text-xs text-muted" data-testid="terminal-size">
      <span>
        <span className="font-mono text-ink">{`${sizing.columns}×${sizing.rows}`}</span>
        {` · ${sizedByWords(sizing, isAdmin)}`}
        {shown ? ` · ${shown}` : null}
      </span>
      {canTakeControl && sizing.sizedBy !== "this-window" ? (
        <button
          type="button"
          className={smallButtonClass}
          onClick={onTakeControl}
          title="Resize the session's terminal to this window (typing here does it too)"
        >
          Fit to this window
        </button>
      ) : null}
    </div>
  );
}

/**
 * The browser terminal of a session, filling its positioned parent. An admin's keystrokes go to the container
 * once it runs (`interactive`; while it starts, the terminal shows its first output and takes no input). The
 * admin window in control of the size fits the terminal to itself; every other window (a viewer's, an admin's
 * other windows) shows the shared size shrunk to fit or scrolled, and an admin's can take control.
 */
export function TerminalView({
  sessionId,
  interactive,
  isAdmin,
  onState,
  onSize,
}: {
  sessionId: string;
  interactive: boolean;
  /** Whether the reader is an admin (else a viewer): it words who sizes the terminal. */
  isAdmin: boolean;
  onState?: (state: TerminalState) => void;
  /** The terminal's size whenever it changes (this window's when it decides it, else the shared one). */
  onSize?: (size: { columns: number; rows: number }) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const [attached, setAttached] = useState(false);
  const [sizing, setSizing] = useState<TerminalSizing | null>(null);
  const callbacks = useRef<TerminalCallbacks>({
    onState,
    onSize,
    onSizing: (now) => setSizing(now),
    onAttached: () => setAttached(true),
  });
  useEffect(() => {
    callbacks.current = { onState, onSize, onSizing: (now) => setSizing(now), onAttached: () => setAttached(true) };
  });
  const connected = useRef<ReturnType<typeof connectTerminal> | null>(null);
  const interactiveNow = useRef(interactive);
  useEffect(() => {
    interactiveNow.current = interactive;
    connected.current?.setInteractive(interactive);
  }, [interactive]);

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const terminal = connectTerminal({ element, sessionId, callbacks });
    connected.current = terminal;
    terminal.setInteractive(interactiveNow.current);
    return () => {
      connected.current = null;
      terminal.close();
    };
  }, [sessionId]);

  return (
    <div className="absolute inset-0 flex flex-col gap-1">
      <SizeLine
        sizing={sizing}
        isAdmin={isAdmin}
        canTakeControl={interactive}
        onTakeControl={() => connected.current?.takeControl()}
      />
      <div
        // only a window that shows the shared size scrolls: one that fits itself has nothing to scroll to, and a
        // scroll bar coming and going would change the size it fits to
        className={`relative min-h-0 flex-1 rounded-lg border border-line bg-[#0b0d12] p-2 ${
          sizing && sizing.sizedBy !== "this-window" ? "overflow-auto" : "overflow-hidden"
        }`}
        data-testid="terminal-frame"
      >
        <div ref={container} className="h-full w-full" data-testid="terminal" aria-label="Session terminal" />
        {attached ? null : (
          <p className="absolute inset-0 grid place-items-center text-sm text-muted">Connecting to the session…</p>
        )}
      </div>
    </div>
  );
}
