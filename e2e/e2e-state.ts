import { readFileSync } from "node:fs";

/** What global setup hands to the tests: where the running product is and what it works on. */
export interface E2eState {
  /** The line invariant-web printed: `invariant-web <version> is running at <printedUrl>`. */
  printedLine: string;
  /** The URL from that line, access token included. */
  printedUrl: string;
  /** Every stdout line up to and including the URL line (there should be just that one). */
  stdoutUntilUrl: string[];
  /** Origin without token, e.g. http://127.0.0.1:41547 */
  origin: string;
  adminToken: string;
  /** pid of the `invariant-web` launcher (the web process); its children are the worker and the private Redis. */
  launcherPid: number;
  dataDir: string;
  /** A directory tree that stands for the user's project. */
  projectDir: string;
  /** A path next to projectDir that does not exist. */
  missingDir: string;
  /** A copy of fixtures/calendar-project: 23 node:test checks that fail until the code is written. */
  calendarDir: string;
}

export const STATE_ENV = "INVARIANT_E2E_STATE";

export function readE2eState(): E2eState {
  const file = process.env[STATE_ENV];
  if (!file)
    throw new Error(
      `${STATE_ENV} is not set: run the e2e tests through playwright.config.ts (its global setup starts invariant-web).`,
    );
  return JSON.parse(readFileSync(file, "utf8")) as E2eState;
}
