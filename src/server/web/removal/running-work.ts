import { AppError } from "../../core/errors/app-error";

/**
 * What still runs in a project that is to be removed: its sessions that are not finished (their containers
 * are still there: running, or exited and kept) and its studies in preflight, running or stopping. Removal
 * refuses with the list, or — asked to stop them — finishes the sessions and stops the studies first, then
 * waits (bounded) until all of them are over.
 */
export interface RunningSession {
  id: string;
  kind: string;
  state: string;
}
export interface RunningStudy {
  id: string;
  title: string;
  state: string;
}
export interface RunningWork {
  sessions: RunningSession[];
  studies: RunningStudy[];
}

/** How removal ends what runs: the sessions service's finish, the study service's stop. */
export interface WorkStopper {
  finishSession(sessionId: string): Promise<unknown>;
  stopStudy(studyId: string, by: string): Promise<unknown>;
}

export const BUSY_STUDY_STATES = new Set(["preflight", "running", "stopping"]);
const ENDING_SESSION_STATES = new Set(["finishing", "finished"]);
const STOP_WAIT_MS = 90_000;

export const isIdle = (work: RunningWork) => work.sessions.length === 0 && work.studies.length === 0;

/** "session 3f2a… (shell, running); study "Fix dates" (running)". */
export function describeRunningWork(work: RunningWork): string {
  return [
    ...work.sessions.map((session) => `${session.kind} session ${session.id} (${session.state})`),
    ...work.studies.map((study) => `study "${study.title}" (${study.state})`),
  ].join("; ");
}

/** The refusal: what runs, and the two ways on (the field names the option that stops them). */
export function runningWorkRefusal(work: RunningWork): AppError {
  const count = work.sessions.length + work.studies.length;
  return new AppError({
    code: "CONFLICT",
    field: "stopRunning",
    message: `This project has ${count === 1 ? "work" : `${count} things`} still running: ${describeRunningWork(work)}. Stop them and remove (the sessions are finished and their containers removed, the studies stopped, then the project goes), or finish them yourself first.`,
  });
}

/** Finishes the sessions and stops the studies, then waits until `current` reports nothing running. */
export async function stopRunningWork(options: {
  work: RunningWork;
  stopper: WorkStopper;
  by: string;
  current: () => Promise<RunningWork>;
  waitMs?: number;
}): Promise<void> {
  const { work, stopper } = options;
  // one that ended on its own meanwhile refuses to be ended again: only a refusal of one still running counts
  const failed = new Map<string, unknown>();
  const attempt = (id: string, end: () => Promise<unknown>) => end().catch((error: unknown) => failed.set(id, error));
  for (const session of work.sessions)
    if (!ENDING_SESSION_STATES.has(session.state)) await attempt(session.id, () => stopper.finishSession(session.id));
  for (const study of work.studies)
    if (study.state !== "stopping") await attempt(study.id, () => stopper.stopStudy(study.id, options.by));
  if (failed.size > 0) {
    const now = await options.current();
    const unended = [
      ...now.sessions.filter((session) => !ENDING_SESSION_STATES.has(session.state)),
      ...now.studies.filter((study) => study.state !== "stopping"),
    ];
    const still = unended.find((item) => failed.has(item.id));
    if (still) throw failed.get(still.id);
  }
  const deadline = Date.now() + (options.waitMs ?? STOP_WAIT_MS);
  for (;;) {
    const left = await options.current();
    if (isIdle(left)) return;
    if (Date.now() > deadline)
      throw new AppError({
        code: "CONFLICT",
        message: `Stopped what was running, but it has not ended yet: ${describeRunningWork(left)}. Wait a minute, then remove the project again.`,
      });
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}
