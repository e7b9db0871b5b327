/**
 * Where a trial was when something ended it, in plain words, for the messages that say so: "Interrupted:
 * … while the agent was running". Every trial state has its phrase; a state the vocabulary gains later
 * reads "while the trial was <state>" until it gets one.
 */
const PHRASES: Record<string, string> = {
  queued: "before it started",
  preparing: "while its workspace was being prepared",
  agent: "while the agent was running",
  evaluating: "while the tests ran",
};

/** How every interruption's sentence begins; a failed job whose reason begins so was interrupted, not an error. */
export const INTERRUPTED = "Interrupted: ";

export function whileStep(state: string | null): string {
  if (state === null) return "before it started";
  return PHRASES[state] ?? `while the trial was ${state}`;
}
