// Helpers for the page benchmarks: launch invariant-web on a seeded data dir, open Debian Chromium
// with the offline flags, and time a navigation until a ready condition holds on the page's own clock.
import path from "node:path";
import { chromium } from "@playwright/test";
import { ROOT, startProcess } from "./lib.mjs";

/** Starts `invariant-web` on a data dir (plus `args`) and waits for its URL line; `app.stop()` stops it. */
export async function launchApp(dataDir, args = []) {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  delete env.REDIS_URL;
  delete env.DISPLAY;
  const app = startProcess(
    process.execPath,
    [path.join(ROOT, "bin", "invariant-web.mjs"), "--data-dir", dataDir, "--port", "0", "--no-open", ...args],
    { env },
  );
  const deadline = Date.now() + 90_000;
  while (!/is running at (\S+)/.test(app.stdout())) {
    if (app.child.exitCode !== null || Date.now() > deadline)
      throw new Error(`invariant-web did not start: ${app.stderr().slice(-2000)}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { app, url: new URL(/is running at (\S+)/.exec(app.stdout())[1]) };
}

/** Debian Chromium, headless, with the flags that keep it off the network. */
export function launchChromium() {
  return chromium.launch({
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

/**
 * Waits until `ready` (a function evaluated in the page, given `arg`, that returns performance.now() once
 * its condition holds and false before) answers, polling every animation frame; returns that moment.
 * The function is passed as a function, not a string: the page's CSP forbids eval, and Playwright
 * evaluates string predicates with it.
 */
export async function readyAt(page, ready, arg) {
  const handle = await page.waitForFunction(ready, arg ?? null, { polling: "raf", timeout: 30_000 });
  return handle.jsonValue();
}
