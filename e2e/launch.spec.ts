import { expect, test } from "@playwright/test";
import { readE2eState } from "./e2e-state";

/** What a user sees in the terminal and what a monitor can ask without a token. */
test("invariant-web prints exactly one stdout line: its URL with the access token", () => {
  const state = readE2eState();
  expect(state.printedLine).toMatch(
    /^invariant-web \d+\.\d+\.\d+\S* is running at http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/,
  );
  expect(state.stdoutUntilUrl).toEqual([state.printedLine]);
});

test("GET /api/health answers without a token and reveals no project data", async ({ request }) => {
  const state = readE2eState();
  // ok once its worker is online (until then it answers 503: no worker is online)
  await expect
    .poll(async () => (await request.get(`${state.origin}/api/health`)).status(), { timeout: 60_000 })
    .toBe(200);
  const response = await request.get(`${state.origin}/api/health`);
  expect(await response.json()).toMatchObject({ status: "ok", problems: [], workers: { online: 1 } });
});
