// Helpers for the terminal-session benchmark: the baselines (the docker CLI in a pseudo-terminal made by
// `script`, and `docker exec` of `cat` with and without a terminal emulator reading it) and the probe that
// times what xterm.js renders in the page.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { ROOT } from "./lib.mjs";

const { Terminal } = createRequire(`${ROOT}/package.json`)("@xterm/headless");

/** A bash prompt at the end of the output (or of a rendered line). */
export const PROMPT = /[$#] ?$/;

/** A command run in a pseudo-terminal (`script -qfc`), as a user's terminal would run it. */
export function inPty(command) {
  const child = spawn("script", ["-qfc", command, "/dev/null"], { stdio: ["pipe", "pipe", "pipe"] });
  let output = "";
  let waiting = null;
  const check = () => {
    if (waiting && waiting.test(output)) {
      const { resolve } = waiting;
      waiting = null;
      resolve(performance.now());
    }
  };
  child.stdout.on("data", (chunk) => {
    output += chunk.toString("latin1");
    check();
  });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  return {
    child,
    /** Resolves to the moment `test(output)` holds. */
    until(test) {
      return new Promise((resolve, reject) => {
        waiting = { test, resolve };
        const timer = setTimeout(
          () => reject(new Error(`${command}: timed out; output: ${output.slice(-500)}`)),
          30_000,
        );
        const settle = resolve;
        waiting.resolve = (at) => (clearTimeout(timer), settle(at));
        check();
      });
    },
    output: () => output,
    type: (text) => child.stdin.write(text),
    async close() {
      child.stdin.end();
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

/** `docker run -it --rm IMAGE bash` in a pseudo-terminal: spawn → bash's first prompt byte (ms). */
export async function dockerRunToPrompt(image) {
  const began = performance.now();
  const pty = inPty(`docker run -it --rm ${image} bash`);
  const at = await pty.until((output) => PROMPT.test(output.trimEnd()));
  pty.type("exit\r");
  await pty.close();
  return at - began;
}

/** Keystroke echo through `docker exec -it CONTAINER bash` in a pseudo-terminal: ms per sample. */
export async function dockerExecEcho(containerId, samples) {
  const pty = inPty(`docker exec -it ${containerId} bash --norc`);
  await pty.until((output) => PROMPT.test(output.trimEnd()));
  const times = [];
  let typed = "";
  for (let i = 0; i < samples; i++) {
    if (typed.length >= 40) {
      pty.type("\u0015"); // Ctrl-U: an empty line again
      typed = "";
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const char = String.fromCharCode(97 + (i % 26));
    typed += char;
    const expected = typed;
    const began = performance.now();
    const waited = pty.until((output) => output.endsWith(expected));
    pty.type(char);
    times.push((await waited) - began);
  }
  await pty.close();
  return times;
}

/** `docker exec CONTAINER cat FILE` to a pipe, read to its end: ms (no terminal at all). */
export function dockerExecCat(containerId, file) {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn("docker", ["exec", containerId, "cat", file], { stdio: ["ignore", "pipe", "inherit"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => (bytes += chunk.length));
    child.once("close", (code) =>
      code === 0 ? resolve({ ms: performance.now() - began, bytes }) : reject(new Error(`docker exec cat: ${code}`)),
    );
  });
}

/**
 * `docker exec -t CONTAINER cat FILE` read by a terminal emulator (xterm.js headless, as a terminal
 * window would parse it): ms until the emulator has taken the last byte.
 */
export function dockerExecCatInTerminal(containerId, file) {
  const terminal = new Terminal({ cols: 160, rows: 50, scrollback: 5000, allowProposedApi: true });
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn("docker", ["exec", "-t", containerId, "cat", file], { stdio: ["ignore", "pipe", "inherit"] });
    let bytes = 0;
    child.stdout.on("data", (chunk) => {
      bytes += chunk.length;
      terminal.write(new Uint8Array(chunk));
    });
    child.once("close", (code) => {
      if (code !== 0) return reject(new Error(`docker exec -t cat: ${code}`));
      terminal.write("", () => {
        resolve({ ms: performance.now() - began, bytes });
        terminal.dispose();
      });
    });
  });
}

/** A 10 MB text file of 100-byte lines. */
export function bigText(bytes) {
  const lines = [];
  for (let i = 0; i < bytes / 100; i++)
    lines.push(
      `${String(i).padStart(8, "0")} ${"the quick brown fox jumps over the lazy dog 0123456789 ".repeat(2).slice(0, 90)}`,
    );
  return `${lines.join("\n")}\n`;
}

/**
 * Before the page's scripts run: notes when each WebSocket message arrives (socket.io's frames), so an echo's
 * time splits into the network part (keydown → the echo's last frame) and the rest (xterm.js parses it and
 * draws at the next animation frame).
 */
export function recordSocketFrames() {
  const Base = globalThis.WebSocket;
  const arrivals = [];
  globalThis.__frames = arrivals;
  globalThis.WebSocket = class extends Base {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", () => arrivals.push(performance.now()));
    }
  };
}

/** In the page: the last socket frame that arrived between `from` and `to` (ms after `from`), or null. */
export function lastFrameBetween([from, to]) {
  const frames = globalThis.__frames.filter((at) => at > from && at <= to);
  globalThis.__frames.splice(0, globalThis.__frames.length);
  return frames.length ? frames.at(-1) - from : null;
}

/**
 * In the page (sent on its own, no closures): records when the last click on a submit button and the last
 * keydown happened, and resolves `__probe.until(test)` at the moment the rendered terminal rows first
 * satisfy a test (a MutationObserver sees xterm.js's DOM renderer write them).
 */
export function installProbe() {
  if (globalThis.__probe) return;
  const probe = { clickAt: null, keyAt: null, waiting: null };
  globalThis.__probe = probe;
  const doc = globalThis.document;
  doc.addEventListener(
    "click",
    (event) => {
      if (event.target.closest?.('button[type="submit"]')) probe.clickAt = performance.now();
    },
    true,
  );
  doc.addEventListener("keydown", () => (probe.keyAt = performance.now()), true);
  const lines = () => {
    const rows = doc.querySelector(".xterm-rows");
    return rows ? [...rows.children].map((row) => row.textContent.replaceAll("\u00a0", " ").trimEnd()) : [];
  };
  const tests = {
    prompt: (rows) => rows.some((line) => /[$#]$/.test(line)),
    endsWith: (rows, text) => rows.some((line) => line.endsWith(text)),
    includes: (rows, text) => rows.some((line) => line.includes(text)),
  };
  const check = () => {
    const waiting = probe.waiting;
    if (!waiting || !tests[waiting.kind](lines(), waiting.text)) return;
    probe.waiting = null;
    waiting.resolve(performance.now());
  };
  new globalThis.MutationObserver(check).observe(doc.body, { subtree: true, childList: true, characterData: true });
  probe.arm = (kind, text) => {
    probe.done = new Promise((resolve) => (probe.waiting = { kind, text, resolve }));
    check();
  };
  probe.lines = lines;
}

/** The bytes `docker exec -t CONTAINER cat FILE` gives a terminal (line ends as \r\n). */
export function ttyBytesOf(containerId, file) {
  return new Promise((resolve, reject) => {
    const child = spawn("docker", ["exec", "-t", containerId, "cat", file], { stdio: ["ignore", "pipe", "inherit"] });
    const chunks = [];
    child.stdout.on("data", (chunk) => chunks.push(chunk));
    child.once("close", (code) => (code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`cat: ${code}`))));
  });
}

/**
 * The floor for any browser terminal on this machine: xterm.js (the same package and options) alone in a
 * blank Chromium page, fed `bytes` in 64 KiB WebSocket messages from this process; and its keystrokes
 * echoed back over the same WebSocket at once. `feed` times one feed (the page asks for the bytes →
 * `marker`, sent after them, rendered, in ms); `echo` times keystrokes (keydown → the echo rendered).
 */
export async function xtermFloor({ browser, viewport }) {
  const { WebSocketServer } = await import("ws");
  const server = new WebSocketServer({ host: "127.0.0.1", port: 0 });
  await new Promise((resolve) => server.once("listening", resolve));
  let payload = Buffer.alloc(0);
  server.on("connection", (socket) =>
    socket.on("message", (message) => {
      const text = message.toString();
      // a keystroke ("k:" + its bytes) is echoed at once, as a TTY in echo mode would
      if (text.startsWith("k:")) return socket.send(Buffer.from(text.slice(2)));
      for (let at = 0; at < payload.length; at += 65_536) socket.send(payload.subarray(at, at + 65_536));
    }),
  );
  const page = await (await browser.newContext({ viewport })).newPage();
  const xterm = path.join(ROOT, "node_modules", "@xterm", "xterm");
  await page.setContent('<div id="terminal" style="position:absolute;inset:8px"></div>');
  await page.addStyleTag({ path: path.join(xterm, "css", "xterm.css") });
  await page.addScriptTag({ path: path.join(xterm, "lib", "xterm.js") });
  await page.evaluate(openFloorTerminal, server.address().port);
  await page.evaluate(installProbe);
  return {
    async feed(bytes, marker) {
      payload = Buffer.concat([bytes, Buffer.from(`\r\n${marker}\r\n`)]);
      await page.evaluate(([kind, text]) => globalThis.__probe.arm(kind, text), ["includes", marker]);
      const began = await page.evaluate(() => {
        globalThis.__socket.send("go");
        return performance.now();
      });
      return (await page.evaluate(() => globalThis.__probe.done)) - began;
    },
    /** `samples` keystrokes typed into the blank page's terminal → each echo rendered (ms, keydown → rows). */
    async echo(samples) {
      await page.locator("#terminal").click();
      const times = [];
      let typed = "";
      for (let i = 0; i < samples; i++) {
        if (typed.length >= 40) {
          await page.evaluate(() => globalThis.__terminal.write("\r\n"));
          typed = "";
        }
        const char = String.fromCharCode(97 + (i % 26));
        typed += char;
        await page.evaluate(([kind, text]) => globalThis.__probe.arm(kind, text), ["endsWith", typed]);
        await page.keyboard.press(char);
        times.push(await page.evaluate(() => globalThis.__probe.done.then((at) => at - globalThis.__probe.keyAt)));
      }
      return times;
    },
    async close() {
      await page.context().close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** In the blank page: xterm.js with the session page's options, and a WebSocket whose messages it writes. */
function openFloorTerminal(port) {
  const terminal = new globalThis.Terminal({
    fontFamily: "ui-monospace, SFMono-Regular, Menlo, monospace",
    fontSize: 13,
    scrollback: 5000,
    allowProposedApi: true,
  });
  terminal.open(globalThis.document.getElementById("terminal"));
  terminal.resize(160, 50);
  const socket = new globalThis.WebSocket(`ws://127.0.0.1:${port}`);
  socket.binaryType = "arraybuffer";
  socket.onmessage = (message) => terminal.write(new Uint8Array(message.data));
  terminal.onData((data) => socket.send(`k:${data}`));
  globalThis.__socket = socket;
  globalThis.__terminal = terminal;
  return new Promise((resolve) => (socket.onopen = resolve));
}
