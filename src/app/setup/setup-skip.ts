/** "Continue anyway" on the checklist: the dashboard stops opening on it for this browser tab. */
const KEY = "invariant.setup.skipped";

export function skipSetup(): void {
  try {
    window.sessionStorage.setItem(KEY, "1");
  } catch {
    // storage refused: the checklist opens again next time, which is harmless
  }
}

export function setupSkipped(): boolean {
  try {
    return window.sessionStorage.getItem(KEY) === "1";
  } catch {
    return false;
  }
}
