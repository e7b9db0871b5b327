import { z } from "zod";

/**
 * The domain's words, declared once: reasoning efforts, harness kinds, and the states of studies and
 * trials with the sets the code asks about. Every schema, view, form and query derives from these.
 */

export const REASONING_EFFORTS = ["minimal", "low", "medium", "high", "xhigh"] as const;
export const reasoningEffortSchema = z.enum(REASONING_EFFORTS);
export type ReasoningEffort = z.infer<typeof reasoningEffortSchema>;

/**
 * `codex`, `claude-code` and `gemini-cli` run that agent CLI (shipped with the product) through the
 * gateway; `command` runs any agent CLI as a shell command line. What each one is: harness-kinds.ts.
 */
export const HARNESS_KINDS = ["codex", "claude-code", "gemini-cli", "command"] as const;
export const harnessKindSchema = z.enum(HARNESS_KINDS);
export type HarnessKind = z.infer<typeof harnessKindSchema>;

export const STUDY_STATES = ["preflight", "refused", "running", "stopping", "done", "stopped"] as const;
export const studyStateSchema = z.enum(STUDY_STATES);
export type StudyState = z.infer<typeof studyStateSchema>;
/** A study in these states has trials still to run or end (it cannot be deleted). */
export const BUSY_STUDY_STATES: readonly StudyState[] = ["preflight", "running", "stopping"];
/** A study in these states is over: nothing of it runs any more. */
export const FINISHED_STUDY_STATES: readonly StudyState[] = ["refused", "done", "stopped"];
/** A Stop can be pressed for a study in these states (a `stopping` one is already being stopped). */
export const STOPPABLE_STUDY_STATES: readonly StudyState[] = ["preflight", "running"];
/** Trials of a study in these states can be run again (its preflight passed). */
export const RETRYABLE_STUDY_STATES: readonly StudyState[] = ["running", "stopping", "done", "stopped"];
/** Finished trials of a study in these states can be continued with feedback (a follow-up of each is queued). */
export const FEEDBACK_STUDY_STATES: readonly StudyState[] = ["running", "done", "stopped"];

/** How a study's preflight (the test command on the untouched snapshot) ended. */
export const preflightStatusSchema = z.enum(["passed", "refused"]);
export type PreflightStatus = z.infer<typeof preflightStatusSchema>;

/** A trial holding a slot on a worker, in the order it goes through them. */
const ACTIVE = ["preparing", "agent", "evaluating"] as const;
export const activeTrialStateSchema = z.enum(ACTIVE);
/** How a worker ends a trial it ran (the web side may also end one `interrupted`). */
const OUTCOMES = ["succeeded", "failed", "error", "stopped"] as const;
export const trialEndStateSchema = z.enum(OUTCOMES);
export type TrialEndState = z.infer<typeof trialEndStateSchema>;
const TERMINAL = [...OUTCOMES, "interrupted"] as const;

export const TRIAL_STATES = ["queued", ...ACTIVE, ...TERMINAL] as const;
export const trialStateSchema = z.enum(TRIAL_STATES);
export type TrialState = z.infer<typeof trialStateSchema>;
export type ActiveTrialState = (typeof ACTIVE)[number];
export type TerminalTrialState = (typeof TERMINAL)[number];

export const ACTIVE_TRIAL_STATES: readonly TrialState[] = ACTIVE;
/** The states a trial does not leave: it has finished, whatever the outcome. */
export const TERMINAL_TRIAL_STATES: readonly TrialState[] = TERMINAL;
/** Waiting for a slot, or holding one: the trial has not ended. */
export const OPEN_TRIAL_STATES: readonly TrialState[] = ["queued", ...ACTIVE];
/** The states Retry accepts: every end but success. */
export const RETRYABLE_TRIAL_STATES: readonly TrialState[] = TERMINAL.filter((state) => state !== "succeeded");

export function isTerminalTrialState(state: string): boolean {
  return (TERMINAL_TRIAL_STATES as readonly string[]).includes(state);
}

export function isActiveTrialState(state: string): boolean {
  return (ACTIVE_TRIAL_STATES as readonly string[]).includes(state);
}
