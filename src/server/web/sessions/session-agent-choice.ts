import { AppError } from "../../core/errors/app-error";
import { HARNESS_INFO } from "../../../shared/harness-kinds";
import type { ProjectView } from "../../../shared/project-schemas";
import { isAgentSession, type SessionKind } from "../../../shared/session-schemas";
import type { TrialOrigin } from "./session-deps";

/**
 * The model a new session's agent runs: the one asked for, else the continued trial's when it ran the
 * same agent, else the project's default configuration's when that names the same agent (a Codex
 * session also takes a default whose harness is not recorded). Null for a shell. Refused when none is
 * found, or when the trial's conversation is to be resumed by another agent than the one that had it.
 */
export function sessionModelOf(options: {
  kind: SessionKind;
  model: string;
  origin: TrialOrigin | null;
  resumeThread: boolean;
  project: Pick<ProjectView, "defaultConfiguration">;
}): string | null {
  const { kind, origin, project } = options;
  if (!isAgentSession(kind)) return null;
  const label = HARNESS_INFO[kind].label;
  const originHarness = origin ? (origin.harness ?? "codex") : null;
  if (origin && options.resumeThread && origin.threadId && originHarness !== kind)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "kind",
      message: `Trial ${origin.trialId} ran ${HARNESS_INFO[originHarness ?? "codex"].label}, so only a ${HARNESS_INFO[originHarness ?? "codex"].label} session can resume its conversation. Start a ${label} session in a fresh conversation instead.`,
    });
  const defaults = project.defaultConfiguration as { harness?: string; model: string };
  const model =
    options.model ||
    (origin && originHarness === kind ? origin.model : null) ||
    ((defaults.harness ?? "codex") === kind ? defaults.model : "");
  if (!model)
    throw new AppError({
      code: "BAD_REQUEST",
      field: "model",
      message: `Choose a model for ${label} (for example ${HARNESS_INFO[kind].exampleModel}; the project's default configuration names none for it).`,
    });
  return model;
}
