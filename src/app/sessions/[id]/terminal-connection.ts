"use client";
import { Terminal } from "@xterm/xterm";
import { FitAddon } from "@xterm/addon-fit";
import { WebLinksAddon } from "@xterm/addon-web-links";
import {
  terminalEvents,
  type TerminalOutput,
  type TerminalScreen,
  type TerminalSizedBy,
  type TerminalSizeMessage,
  type TerminalState,
} from "../../../shared/session-schemas";
import { getSocket } from "../../_lib/socket";
import { silenceQueryReplies } from "./terminal-replies";

const FONT_SIZE = 13;
/** The smallest font a window shrinks a larger shared terminal to; beyond that it scrolls. */
const MIN_FONT_SIZE = 8;
/** xterm.js's scroll bar beside the rows. */
const SCROLL_BAR_WIDTH = 14;

/** How this window shows the terminal: its size, who decides it, and whether it is shrunk or cut off. */
export interface TerminalSizing {
  columns: number;
  rows: number;
  sizedBy: TerminalSizedBy;
  fontSize: number;
  /** Wider or taller than the window even at the smallest font: the rest is a scroll away. */
  overflows: boolean;
}

export interface TerminalCallbacks {
  onState?: (state: TerminalState) => void;
  onSize?: (size: { columns: number; rows: number }) => void;
  onSizing?: (sizing: TerminalSizing) => void;
  onAttached: () => void;
}

/** xterm.js in `element` with clickable links; it takes no input until made interactive. */
function openTerminal(element: HTMLElement) {
  const terminal = new Terminal({
    // a steady cursor: with cursorBlink, xterm.js drew each keystroke's echo some 17 ms later (p50 26 vs 7 ms
    // keydown → echo rendered in the same blank page, bench/sessions.bench.mjs's floor)
    cursorBlink: false,
    disableStdin: true,
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
    fontSize: FONT_SIZE,
    scrollback: 5000,
    allowProposedApi: true,
    theme: { background: "#0b0d12" },
  });
  const fit = new FitAddon();
  terminal.loadAddon(fit);
  terminal.loadAddon(new WebLinksAddon());
  silenceQueryReplies(terminal);
  terminal.open(element);
  return { terminal, fit };
}

/**
 * Shows a terminal of `size` in the window: the largest font up to the usual one at which it fits (cells round
 * to whole pixels, so it steps down until it does), no smaller than MIN_FONT_SIZE; answers the font and whether
 * the terminal still overflows.
 */
function showScaled(terminal: Terminal, fit: FitAddon, size: { columns: number; rows: number }) {
  if (terminal.cols !== size.columns || terminal.rows !== size.rows) terminal.resize(size.columns, size.rows);
  terminal.options.fontSize = FONT_SIZE;
  const room = fit.proposeDimensions();
  if (!room) return { fontSize: FONT_SIZE, overflows: false };
  const fits = (r: { cols: number; rows: number }) => r.cols >= size.columns && r.rows >= size.rows;
  const factor = Math.min(1, room.cols / size.columns, room.rows / size.rows);
  let fontSize = Math.max(MIN_FONT_SIZE, Math.floor(FONT_SIZE * factor * 2) / 2);
  terminal.options.fontSize = fontSize;
  for (let now = fit.proposeDimensions(); now && !fits(now) && fontSize > MIN_FONT_SIZE;) {
    fontSize -= 0.5;
    terminal.options.fontSize = fontSize;
    now = fit.proposeDimensions();
  }
  const last = fit.proposeDimensions();
  return { fontSize, overflows: last ? !fits(last) : false };
}

/** Keys that are no typing of their own: a modifier pressed alone, or copying a selection. */
const isTyping = (event: KeyboardEvent, terminal: Terminal) =>
  event.type === "keydown" &&
  !["Shift", "Control", "Alt", "Meta", "CapsLock"].includes(event.key) &&
  !((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "c" && terminal.hasSelection());

/**
 * This window's side of who sizes the terminal: in control (the server says so) and taking input, it fits the
 * terminal to itself and sends that size; otherwise it shows the shared size scaled. `claim` takes control.
 */
function createWindowSizing(options: {
  element: HTMLElement;
  terminal: Terminal;
  fit: FitAddon;
  send: (size: { columns: number; rows: number; claim: boolean }) => void;
  onSizing: (sizing: TerminalSizing) => void;
}) {
  const { element, terminal, fit } = options;
  let interactive = false;
  let shared: TerminalSizeMessage | null = null;
  const inControl = () => shared?.sizedBy === "this-window";
  /** Tells the page how this window shows the terminal (its own size when it decides it). */
  const report = (fontSize: number, overflows: boolean) => {
    if (!shared) return;
    const own = inControl() && interactive ? { columns: terminal.cols, rows: terminal.rows } : {};
    options.onSizing({ ...shared, ...own, fontSize, overflows });
  };
  /** Fits the terminal to this window and sends that size (`claim`: taking control first). */
  const sendSize = (claim: boolean) => {
    if (!interactive) return;
    element.style.maxWidth = "";
    terminal.options.fontSize = FONT_SIZE;
    fit.fit();
    options.send({ columns: terminal.cols, rows: terminal.rows, claim });
    if (shared) shared = { ...shared, sizedBy: "this-window" };
    report(FONT_SIZE, false);
  };
  const layout = () => {
    if (!shared) return;
    if (inControl() && interactive) return sendSize(false);
    element.style.maxWidth = ""; // measured in the whole frame
    const shown = showScaled(terminal, fit, shared);
    // a terminal narrower than the window keeps its scroll bar beside its rows, not at the frame's far edge
    const screen = terminal.element?.querySelector<HTMLElement>(".xterm-screen");
    if (screen && !shown.overflows) element.style.maxWidth = `${screen.offsetWidth + SCROLL_BAR_WIDTH}px`;
    report(shown.fontSize, shown.overflows);
  };
  return {
    layout,
    /** The server's word on the size and who decides it. */
    heard(message: TerminalSizeMessage) {
      const wasInControl = inControl();
      shared = message;
      // the window in control keeps its own fit; it sends a size again only when it just took control
      if (wasInControl && inControl() && interactive) return report(FONT_SIZE, false);
      layout();
    },
    setInteractive(now: boolean) {
      interactive = now;
      layout();
    },
    /** Takes control unless this window has it (typing, pasting, "Fit to this window"). */
    claim: () => (interactive && !inControl() ? sendSize(true) : undefined),
  };
}

/**
 * xterm.js in `element` wired to a session over the page's socket: on attach the server sends the whole
 * screen, then live bytes, and the terminal's size with who decides it. Once `setInteractive(true)`,
 * keystrokes go to the container; the window in control of the size (the server says which) fits the
 * terminal to itself and sends that size. Every other window shows the shared size, shrunk to fit or
 * scrolled, and sends none: typing in it, or `takeControl`, makes it the one in control first.
 */
export function connectTerminal(options: {
  element: HTMLElement;
  sessionId: string;
  callbacks: { current: TerminalCallbacks };
}) {
  const { element, sessionId, callbacks } = options;
  const socket = getSocket();
  const { terminal, fit } = openTerminal(element);
  let interactive = false;
  const sizing = createWindowSizing({
    element,
    terminal,
    fit,
    send: (size) => socket.emit(terminalEvents.resize, { sessionId, ...size }),
    onSizing: (now) => callbacks.current.onSizing?.(now),
  });
  const onScreen = (screen: TerminalScreen) => {
    if (screen.sessionId !== sessionId) return;
    terminal.reset();
    terminal.resize(screen.columns, screen.rows);
    terminal.write(screen.data);
    callbacks.current.onAttached();
    sizing.layout();
    if (interactive) terminal.focus();
  };
  const onOutput = (output: TerminalOutput) => {
    if (output.sessionId === sessionId) terminal.write(new Uint8Array(output.data));
  };
  const onSizeMessage = (message: TerminalSizeMessage) => {
    if (message.sessionId === sessionId) sizing.heard(message);
  };
  const onTerminalState = (state: TerminalState) => {
    if (state.sessionId === sessionId) callbacks.current.onState?.(state);
  };
  const attach = () => socket.emit(terminalEvents.attach, { sessionId });
  const listen = (on: boolean) => {
    const method = on ? socket.on.bind(socket) : socket.off.bind(socket);
    method(terminalEvents.screen, onScreen);
    method(terminalEvents.output, onOutput);
    method(terminalEvents.size, onSizeMessage);
    method(terminalEvents.state, onTerminalState);
    method("connect", attach); // a reconnect is a new server-side socket
  };
  listen(true);
  if (socket.connected) attach();
  const resized = terminal.onResize(({ cols, rows }) => callbacks.current.onSize?.({ columns: cols, rows }));
  // typing in a window not in control takes control first (the size reaches the TTY before the keys)
  terminal.attachCustomKeyEventHandler((event) => {
    if (isTyping(event, terminal)) sizing.claim();
    return true;
  });
  element.addEventListener("paste", sizing.claim, true);
  const typed = terminal.onData((data) => {
    if (interactive) socket.emit(terminalEvents.input, { sessionId, data });
  });
  const observer = new ResizeObserver(() => sizing.layout());
  observer.observe(element);
  // a window showing the shared size narrows `element` to it: the frame's size says when the window changed
  if (element.parentElement) observer.observe(element.parentElement);
  return {
    /** Takes input from now on (or stops), without reattaching; in control, it sizes the TTY to this window. */
    setInteractive(now: boolean) {
      interactive = now;
      terminal.options.disableStdin = !now;
      sizing.setInteractive(now);
      if (now) terminal.focus();
    },
    /** "Fit to this window": this window takes control of the size. */
    takeControl() {
      sizing.claim();
      terminal.focus();
    },
    close() {
      observer.disconnect();
      element.removeEventListener("paste", sizing.claim, true);
      typed.dispose();
      resized.dispose();
      socket.emit(terminalEvents.detach, { sessionId });
      listen(false);
      terminal.dispose();
    },
  };
}
