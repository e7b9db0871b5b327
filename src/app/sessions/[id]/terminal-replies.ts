import type { IDisposable, IFunctionIdentifier, Terminal } from "@xterm/xterm";

/**
 * The terminal queries a program sends (device attributes, status and cursor position reports, mode and
 * setting requests, the version, colour queries). The server's headless terminal answers each one
 * (terminal-hub.ts), so a program gets one answer with no browser, a read-only one, or several.
 */
const CSI_QUERIES: IFunctionIdentifier[] = [
  { final: "c" }, // DA1: ESC [ c → ESC [ ? 1 ; 2 c
  { prefix: ">", final: "c" }, // DA2
  { prefix: "=", final: "c" }, // DA3
  { final: "n" }, // DSR: status, cursor position
  { prefix: "?", final: "n" }, // DECDSR
  { intermediates: "$", final: "p" }, // DECRQM
  { prefix: "?", intermediates: "$", final: "p" },
  { prefix: ">", final: "q" }, // XTVERSION
  { prefix: "?", final: "u" }, // the kitty keyboard protocol's flags
];
const COLOUR_QUERIES = [4, 10, 11, 12, 17, 19];

/**
 * Keeps the browser's terminal from answering them too. xterm.js sends its answers as if typed (onData),
 * so an admin's window used to send a second answer after the server's: one that arrived once the program
 * had stopped reading them (Codex on its way out, the TTY back in cooked mode) was echoed on the exit
 * screen as a raw `^[[?1;2c`. The browser now takes such a query as handled and answers nothing.
 */
export function silenceQueryReplies(terminal: Pick<Terminal, "parser">): IDisposable {
  const handled = [
    ...CSI_QUERIES.map((id) => terminal.parser.registerCsiHandler(id, () => true)),
    terminal.parser.registerDcsHandler({ intermediates: "$", final: "q" }, () => true), // DECRQSS
    // a colour query is "?" (after the palette index for OSC 4); setting a colour still works
    ...COLOUR_QUERIES.map((code) => terminal.parser.registerOscHandler(code, (data) => data.includes("?"))),
  ];
  return { dispose: () => handled.forEach((handler) => handler.dispose()) };
}
