import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests drive the real product (web process, worker, private Redis) in Debian's Chromium.
 * e2e/global-setup.ts starts `invariant-web` on a free port with a temporary data dir and stops it afterwards;
 * the tests read its URL and token from the state file it writes (see e2e/e2e-state.ts).
 * Run with `PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npx playwright test`; never `npx playwright install`.
 */
export default defineConfig({
  testDir: "e2e",
  globalSetup: "./e2e/global-setup.ts",
  workers: 1,
  fullyParallel: false,
  retries: 0,
  reporter: "list",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  forbidOnly: Boolean(process.env.CI),
  use: {
    browserName: "chromium",
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
    launchOptions: {
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
    },
  },
});
