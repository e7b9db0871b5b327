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

/** xterm.js in `element`, fitted to it, with clickable links; it takes no input until made interactive. */
function openTerminal(element: HTMLElement) {
  const terminal = new Terminal({
    // a steady cursor: with cursorBlink, xterm.js drew each keystroke's echo some 17 ms later (p50 26 vs 7 ms
    // keydown → echo rendered in the same blank page, bench/sessions.bench.mjs's floor)
    cursorBlink: false,
    disableStdin: true,
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

interface Callbacks {
  onState?: (state: TerminalState) => void;
  onSize?: (size: { columns: number; rows: number }) => void;
  onAttached: () => void;
}

/**
 * xterm.js in `element` wired to a session over the page's socket: on attach the server sends the whole
 * screen, then live bytes. Once `setInteractive(true)`, keystrokes and the fitted size go to the container;
 * before (a viewer, or a session still starting) the terminal takes the server's size and sends nothing.
 */
function connectTerminal(options: { element: HTMLElement; sessionId: string; callbacks: { current: Callbacks } }) {
  const { element, sessionId, callbacks } = options;
  const socket = getSocket();
  const { terminal, fit } = openTerminal(element);
  let interactive = false;
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
    callbacks.current.onAttached();
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
  const listen = (on: boolean) => {
    const method = on ? socket.on.bind(socket) : socket.off.bind(socket);
    method(terminalEvents.screen, onScreen);
    method(terminalEvents.output, onOutput);
    method(terminalEvents.resize, onResize);
    method(terminalEvents.state, onTerminalState);
    method("connect", attach); // a reconnect is a new server-side socket
  };
  listen(true);
  if (socket.connected) attach();
  const resized = terminal.onResize(({ cols, rows }) => callbacks.current.onSize?.({ columns: cols, rows }));
  const typed = terminal.onData((data) => {
    if (interactive) socket.emit(terminalEvents.input, { sessionId, data });
  });
  const observer = new ResizeObserver(() => sendSize());
  observer.observe(element);
  return {
    /** Takes input and sends its size from now on (or stops), without reattaching. */
    setInteractive(now: boolean) {
      interactive = now;
      terminal.options.disableStdin = !now;
      if (!now) return;
      sendSize();
      terminal.focus();
    },
    close() {
      observer.disconnect();
      typed.dispose();
      resized.dispose();
      socket.emit(terminalEvents.detach, { sessionId });
      listen(false);
      terminal.dispose();
    },
  };
}

/**
 * The browser terminal of a session, filling its positioned parent. An admin's keystrokes and window size
 * go to the container once it runs (`interactive`; while it starts, the terminal shows its first output and
 * takes no input); a viewer's terminal takes the server's size and sends nothing (the server would drop it
 * anyway).
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
  const callbacks = useRef<Callbacks>({ onState, onSize, onAttached: () => setAttached(true) });
  useEffect(() => {
    callbacks.current = { onState, onSize, onAttached: () => setAttached(true) };
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
    <div className="absolute inset-0 rounded-lg border border-line bg-[#0b0d12] p-2">
      <div ref={container} className="h-full w-full" data-testid="terminal" aria-label="Session terminal" />
      {attached ? null : (
        <p className="absolute inset-0 grid place-items-center text-sm text-muted">Connecting to the session…</p>
      )}
    </div>
  );
}
