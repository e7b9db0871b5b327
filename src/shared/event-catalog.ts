import { z } from "zod";
import { tokenUsageSchema } from "./token-usage";
import { trialResultSchema } from "./trial-result";
import { trialOutcomeSchema } from "./trial-outcome";
import { verdictSchema } from "./verdict-summary";
import { activeTrialStateSchema, harnessKindSchema, preflightStatusSchema, trialEndStateSchema } from "./vocabulary";

/**
 * Version 1 of the event catalog: every event a worker publishes through Redis and the web process
 * records and fans out over socket.io. Server and client parse with these schemas. Add event types
 * freely; change a payload only with a new catalog version.
 */
export const EVENT_CATALOG_VERSION = 1;

const base = {
  v: z.literal(EVENT_CATALOG_VERSION),
  at: z.string(),
  workerId: z.string().optional(),
  projectId: z.string().optional(),
  studyId: z.string().optional(),
  trialId: z.string().optional(),
  sessionId: z.string().optional(),
};

export const workerOnlineEvent = z.object({
  ...base,
  type: z.literal("worker.online"),
  data: z.object({ host: z.string(), pid: z.number().int(), concurrency: z.number().int() }),
});

export const workerOfflineEvent = z.object({
  ...base,
  type: z.literal("worker.offline"),
  data: z.object({ host: z.string(), pid: z.number().int(), reason: z.string() }),
});

export const environmentStartedEvent = z.object({
  ...base,
  type: z.literal("environment.started"),
  projectId: z.string(),
  data: z.object({ versionId: z.string(), containerId: z.string() }),
});

/** A chunk of a build's output (batched by the worker). */
export const environmentLogEvent = z.object({
  ...base,
  type: z.literal("environment.log"),
  projectId: z.string(),
  data: z.object({ versionId: z.string(), text: z.string() }),
});

export const environmentFinishedEvent = z.object({
  ...base,
  type: z.literal("environment.finished"),
  projectId: z.string(),
  data: z.object({
    versionId: z.string(),
    status: z.enum(["ready", "failed"]),
    imageId: z.string().optional(),
    sizeBytes: z.number().optional(),
    durationMs: z.number(),
    error: z.string().optional(),
  }),
});

export const agentStartedEvent = z.object({
  ...base,
  type: z.literal("agent.started"),
  projectId: z.string(),
  data: z.object({
    runId: z.string(),
    containerId: z.string(),
    harness: harnessKindSchema,
    harnessVersion: z.string().nullable(),
  }),
});

/** Parsed Codex events of a run (src/server/core/agents/codex-events.ts), batched by the worker. */
export const agentEventsEvent = z.object({
  ...base,
  type: z.literal("agent.events"),
  projectId: z.string(),
  data: z.object({ runId: z.string(), events: z.array(z.record(z.string(), z.unknown())) }),
});

export const agentFinishedEvent = z.object({
  ...base,
  type: z.literal("agent.finished"),
  projectId: z.string(),
  data: z.object({
    runId: z.string(),
    status: z.enum(["succeeded", "failed", "stopped"]),
    reason: z.string().nullable(),
    threadId: z.string().nullable(),
    agentSeconds: z.number(),
    usage: tokenUsageSchema.nullable(),
    harnessVersion: z.string().nullable(),
  }),
});

/** The baseline run of a study's test command on the untouched snapshot, before any model call. */
export const studyPreflightFinishedEvent = z.object({
  ...base,
  type: z.literal("study.preflight-finished"),
  studyId: z.string(),
  data: z.object({
    status: preflightStatusSchema,
    verdict: verdictSchema.nullable(),
    refusal: z.string().nullable(),
    exitCode: z.number().int().nullable(),
    durationMs: z.number(),
    outputTail: z.string(),
  }),
});

/** A change the web process made itself (stop, retry, a trial found interrupted), so every viewer hears of it. */
export const studyChangedEvent = z.object({
  ...base,
  type: z.literal("study.changed"),
  studyId: z.string(),
  data: z.object({ reason: z.string(), trialIds: z.array(z.string()).default([]) }),
});

export const trialStartedEvent = z.object({
  ...base,
  type: z.literal("trial.started"),
  studyId: z.string(),
  trialId: z.string(),
  data: z.object({ attempt: z.number().int(), workspaceId: z.string().nullable() }),
});

/**
 * What an attempt made on disk and in Docker, published the moment it exists (the workspace before the
 * agent starts, the image at commit): an attempt whose worker dies before `trial.finished` still has its
 * artefacts on record, so deleting the study removes them.
 */
export const trialArtefactsEvent = z.object({
  ...base,
  type: z.literal("trial.artefacts"),
  studyId: z.string(),
  trialId: z.string(),
  data: z.object({
    attempt: z.number().int(),
    workspaceId: z.string().optional(),
    /** Which kind the workspace is (copy-on-write `overlay`, or a full `copy`): shown in the trial's manifest. */
    workspaceKind: z.enum(["copy", "overlay"]).optional(),
    committedImageId: z.string().optional(),
    /** With committedImageId, when the image stays on the engine of a worker on another host: that worker and its host. */
    imageWorker: z.string().optional(),
    imageHost: z.string().optional(),
  }),
});

/** Where a running trial is: its state, current step, tokens so far and commands run. */
export const trialProgressEvent = z.object({
  ...base,
  type: z.literal("trial.progress"),
  studyId: z.string(),
  trialId: z.string(),
  data: z.object({
    attempt: z.number().int(),
    state: activeTrialStateSchema,
    step: z.string(),
    usage: tokenUsageSchema.nullable().default(null),
    commandsRun: z.number().int().nullable().default(null),
  }),
});

/** A chunk of a trial's log (batched by the worker); the whole log is in the data dir. */
export const trialLogEvent = z.object({
  ...base,
  type: z.literal("trial.log"),
  studyId: z.string(),
  trialId: z.string(),
  data: z.object({ attempt: z.number().int(), text: z.string() }),
});

/** How a trial's attempt ended and what it measured (trial-result.ts); per-test rows are in `evaluationFile`. */
export const trialFinishedEvent = z.object({
  ...base,
  type: z.literal("trial.finished"),
  studyId: z.string(),
  trialId: z.string(),
  data: trialResultSchema.extend({
    attempt: z.number().int(),
    state: trialEndStateSchema,
    /** How the run ended, as shown (completed, agent-failed, timed-out, ...); absent from events of older workers. */
    outcome: trialOutcomeSchema.optional(),
    /** Per-test rows are in this file (JSON), written before the event. */
    evaluationFile: z.string().nullable(),
    usage: tokenUsageSchema.nullable(),
  }),
});
export type TrialFinishedData = z.infer<typeof trialFinishedEvent>["data"];

export const invariantEventSchema = z.discriminatedUnion("type", [
  workerOnlineEvent,
  workerOfflineEvent,
  environmentStartedEvent,
  environmentLogEvent,
  environmentFinishedEvent,
  agentStartedEvent,
  agentEventsEvent,
  agentFinishedEvent,
  studyPreflightFinishedEvent,
  studyChangedEvent,
  trialStartedEvent,
  trialProgressEvent,
  trialLogEvent,
  trialFinishedEvent,
  trialArtefactsEvent,
]);
export type InvariantEvent = z.infer<typeof invariantEventSchema>;
export type InvariantEventType = InvariantEvent["type"];

/** A recorded event as the browser receives it (socket.io `event`, tRPC event lists). */
export interface RecordedEvent {
  id: number;
  event: InvariantEvent;
}

/** socket.io room names. */
export const rooms = {
  system: "system",
  project: (id: string) => `project:${id}`,
  study: (id: string) => `study:${id}`,
} as const;

/** High-volume events go only to the narrowest room that shows them. */
const CHATTY: ReadonlySet<string> = new Set([
  "trial.log",
  "trial.progress",
  "trial.artefacts",
  "agent.events",
  "environment.log",
]);

/** The socket.io rooms a recorded event goes to (the browser filters with the same rule). */
export function roomsFor(event: InvariantEvent): string[] {
  if (CHATTY.has(event.type)) {
    if (event.studyId) return [rooms.study(event.studyId)];
    return event.projectId ? [rooms.project(event.projectId)] : [rooms.system];
  }
  const list: string[] = [rooms.system];
  if (event.projectId) list.push(rooms.project(event.projectId));
  if (event.studyId) list.push(rooms.study(event.studyId));
  return list;
}

/** Events the server emits to browsers, by socket.io event name. */
export const serverToClient = {
  event: "event",
} as const;

export const subscribeSchema = z.object({ room: z.string().regex(/^(system|project:[\w-]+|study:[\w-]+)$/) });
