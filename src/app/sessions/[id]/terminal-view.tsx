"use client";
import { useEffect, useRef, useState } from "react";
import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { WebLinksAddon } from "@xterm/addon-web-links";
import "@xterm/xterm/css/xterm.css";
import {
  terminalEvents,
  type TerminalOutput,
  type TerminalScreen,
  type TerminalState,
} from "../../../shared/session-schemas";
import { getSocket } from "../../_lib/socket";

/** xterm.js in `element`, fitted to it, with clickable links. */
function openTerminal(element: HTMLElement, interactive: boolean) {
  const terminal = new Terminal({
    cursorBlink: interactive,
    disableStdin: !interactive,
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
    fontSize: 13,
    scrollback: 5000,
    allowProposedApi: true,
    theme: { background: "#0b0d12" },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.loadAddon(new WebLinksAddon());
  terminal.open(element);
  return { terminal, fit };
}

/**
 * The browser terminal of a session: xterm.js over the page's socket, filling its positioned parent. On attach the server sends the
 * whole screen, then live bytes. An admin's keystrokes and window size go to the container; a viewer's
 * terminal takes the server's size and sends nothing (the server would drop it anyway).
 */
export function TerminalView({
  sessionId,
  interactive,
  onState,
  onSize,
}: {
  sessionId: string;
  interactive: boolean;
  onState?: (state: TerminalState) => void;
  /** The terminal's size whenever it changes (the window's, fitted; for a viewer, the admin's). */
  onSize?: (size: { columns: number; rows: number }) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const [attached, setAttached] = useState(false);
  const callbacks = useRef({ onState, onSize });
  useEffect(() => {
    callbacks.current = { onState, onSize };
  });

  useEffect(() => {
    const element = container.current;
    if (!element) return;
    const socket = getSocket();
    const { terminal, fit } = openTerminal(element, interactive);
    const sendSize = () => {
      if (!interactive) return;
      fit.fit();
      socket.emit(terminalEvents.resize, { sessionId, columns: terminal.cols, rows: terminal.rows });
    };
    const onScreen = (screen: TerminalScreen) => {
      if (screen.sessionId !== sessionId) return;
      terminal.reset();
      terminal.resize(screen.columns, screen.rows);
      terminal.write(screen.data);
      setAttached(true);
      sendSize();
      if (interactive) terminal.focus();
    };
    const onOutput = (output: TerminalOutput) => {
      if (output.sessionId === sessionId) terminal.write(new Uint8Array(output.data));
    };
    const onResize = (size: { sessionId: string; columns: number; rows: number }) => {
      if (size.sessionId === sessionId && !interactive) terminal.resize(size.columns, size.rows);
    };
    const onTerminalState = (state: TerminalState) => {
      if (state.sessionId === sessionId) callbacks.current.onState?.(state);
    };
    const attach = () => socket.emit(terminalEvents.attach, { sessionId });
    socket.on(terminalEvents.screen, onScreen);
    socket.on(terminalEvents.output, onOutput);
    socket.on(terminalEvents.resize, onResize);
    socket.on(terminalEvents.state, onTerminalState);
    socket.on("connect", attach); // a reconnect is a new server-side socket
    if (socket.connected) attach();
    const resized = terminal.onResize(({ cols, rows }) => callbacks.current.onSize?.({ columns: cols, rows }));
    const typed = terminal.onData((data) => {
      if (interactive) socket.emit(terminalEvents.input, { sessionId, data });
    });
    const observer = new ResizeObserver(() => sendSize());
    observer.observe(element);
    return () => {
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      socket.emit(terminalEvents.detach, { sessionId });
      socket.off(terminalEvents.screen, onScreen);
      socket.off(terminalEvents.output, onOutput);
      socket.off(terminalEvents.resize, onResize);
      socket.off(terminalEvents.state, onTerminalState);
      socket.off("connect", attach);
      terminal.dispose();
    };
  }, [sessionId, interactive]);

  return (
    <div className="absolute inset-0 rounded-lg border border-line bg-[#0b0d12] p-2">
      <div ref={container} className="h-full w-full" data-testid="terminal" aria-label="Session terminal" />
      {attached ? null : (
        <p className="absolute inset-0 grid place-items-center text-sm text-muted">Connecting to the session…</p>
      )}
    </div>
  );
}
