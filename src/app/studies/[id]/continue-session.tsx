"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, type FormEvent, type SyntheticEvent } from "react";
import type { TrialView } from "../../../shared/study-schemas";
import { isTerminalTrialState, type HarnessKind } from "../../../shared/vocabulary";
import { HARNESS_INFO } from "../../../shared/harness-kinds";
import type { AgentSessionKind } from "../../../shared/session-schemas";
import {
  buttonClass,
  ErrorMessage,
  focusRing,
  secondaryButtonClass,
  smallButtonClass,
  warnBoxClass,
} from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { shortId } from "../study-format";

/** What the session runs: the trial's agent resuming its conversation, that agent afresh, or a shell. */
type ContinueChoice = "resume" | "fresh" | "shell";

/** The choices for a trial whose agent is `agent` (a command trial's: Codex, which has no conversation to resume). */
function choicesFor(
  agent: AgentSessionKind,
): { value: ContinueChoice; label: string; hint: (trial: TrialView) => string }[] {
  const name = HARNESS_INFO[agent].label;
  return [
    {
      value: "resume",
      label: `${name}, resuming the agent's conversation`,
      hint: (trial) =>
        `${agent === "codex" ? "Thread" : "Session"} ${shortId(trial.threadId, 8)}…: ${name} shows what the agent did and continues from there.`,
    },
    { value: "fresh", label: `${name}, in a fresh conversation`, hint: () => `${name} starts with no history.` },
    { value: "shell", label: "A shell", hint: () => "Look around, run the tests, edit by hand." },
  ];
}

/** The session kind that continues a trial of `harness`: its own agent (a command trial: Codex). */
function agentOf(harness: HarnessKind | undefined): AgentSessionKind {
  return harness === "claude-code" || harness === "gemini-cli" ? harness : "codex";
}

/** sessions.start from a trial, then the session's terminal page. */
function useContinue(projectId: string, trialId: string, agent: AgentSessionKind) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const start = useMutation(
    trpc.sessions.start.mutationOptions({
      onSuccess: (session) => {
        void queryClient.invalidateQueries({ queryKey: trpc.sessions.pathKey() });
        router.push(`/sessions/${session.id}`);
      },
    }),
  );
  const run = (choice: ContinueChoice) =>
    start.mutate({
      projectId,
      fromTrialId: trialId,
      mode: "private",
      kind: choice === "shell" ? "shell" : agent,
      resumeTrialThread: choice === "resume",
    });
  return { start, run };
}

/** A trial that ran on a worker on another host: its image comes from there first. */
function RemoteImageNote({ trial }: { trial: TrialView }) {
  if (!trial.committedImageId || !trial.imageHost) return null;
  return (
    <p className="text-sm text-muted">
      Its result image is on the Docker engine of {trial.imageHost}, where a worker on another host ran it: the session
      first fetches it from that worker (which must be online), unless it is here already.
    </p>
  );
}

function ContinueDialog(props: { projectId: string; trial: TrialView; agent: AgentSessionKind; onClose: () => void }) {
  const { projectId, trial, agent, onClose } = props;
  const ref = useRef<HTMLDialogElement>(null);
  const [choice, setChoice] = useState<ContinueChoice>(trial.threadId ? "resume" : "fresh");
  const { start, run } = useContinue(projectId, trial.id, agent);
  const busy = start.isPending || start.isSuccess;
  useEffect(() => {
    const dialog = ref.current;
    if (dialog && !dialog.open) dialog.showModal();
    return () => dialog?.close();
  }, []);
  const onCancel = (event: SyntheticEvent) => {
    event.preventDefault();
    if (!busy) onClose();
  };
  const submit = (event: FormEvent) => {
    event.preventDefault();
    run(choice);
  };
  const title = `Continue trial ${trial.choice}.${trial.repeat} in a session`;
  const choices = choicesFor(agent).filter((option) => option.value !== "resume" || trial.threadId);
  return (
    <dialog
      ref={ref}
      aria-label={title}
      onCancel={onCancel}
      className="m-auto w-[min(36rem,calc(100vw-2rem))] rounded-xl border border-line bg-panel p-5 text-ink backdrop:bg-canvas/80"
    >
      <form onSubmit={submit} className="space-y-4">
        <div>
          <h2 className="text-lg font-semibold">{title}</h2>
          <p className="mt-1 text-sm text-muted">
            A private copy of the trial&apos;s workspace, in its result image (the tools its agent had). The project is
            not touched: finish the session, then review its changes and apply them like a trial&apos;s.
          </p>
        </div>
        <RemoteImageNote trial={trial} />
        {trial.committedImageId ? null : (
          <p className={warnBoxClass} role="alert">
            This trial kept no result image (its agent container was not committed), so it cannot be continued with its
            tools.
          </p>
        )}
        <fieldset>
          <legend className="mb-2 text-sm text-muted">Run</legend>
          <div className="space-y-2">
            {choices.map((option) => (
              <label key={option.value} className="flex items-start gap-2 text-sm">
                <input
                  type="radio"
                  name="continue-choice"
                  className="mt-1"
                  checked={choice === option.value}
                  onChange={() => setChoice(option.value)}
                />
                <span>
                  {option.label}
                  <span className="block text-xs text-muted">{option.hint(trial)}</span>
                </span>
              </label>
            ))}
          </div>
        </fieldset>
        {start.error ? (
          <ErrorMessage>Could not start the session: {describeError(start.error).message}</ErrorMessage>
        ) : null}
        <div className="flex gap-3">
          <button type="submit" className={`${buttonClass} ${focusRing}`} disabled={busy || !trial.committedImageId}>
            {busy ? "Starting…" : "Start session"}
          </button>
          <button type="button" className={`${secondaryButtonClass} ${focusRing}`} onClick={onClose} disabled={busy}>
            Cancel
          </button>
        </div>
      </form>
    </dialog>
  );
}

/**
 * "Continue in a session…" (admins, once the trial has finished with a workspace): a session on a private copy
 * of the trial's workspace, in its result image, its agent (Codex, Claude Code, Gemini CLI) resuming the
 * trial's conversation or starting afresh (or a shell); it opens the session's terminal. Viewers see nothing (the server refuses them too).
 */
export function ContinueInSession({
  studyId,
  trialId,
  prominent = false,
}: {
  studyId: string;
  trialId: string;
  /** A full-size button (the review page's header) rather than a small one (beside the result image's id). */
  prominent?: boolean;
}) {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const study = useQuery(trpc.studies.get.queryOptions({ studyId }));
  const [open, setOpen] = useState(false);
  const trial = study.data?.trials.find((candidate) => candidate.id === trialId);
  if (!isAdmin || !study.data || !trial || !isTerminalTrialState(trial.state) || !trial.workspaceId) return null;
  // the configuration the trial ran (a retry's edited one has its own number)
  const agent = agentOf(
    study.data.configurations.find((configuration) => configuration.choice === trial.choice)?.harness,
  );
  return (
    <>
      <button
        type="button"
        className={prominent ? `${secondaryButtonClass} ${focusRing}` : smallButtonClass}
        onClick={() => setOpen(true)}
        title="Open a session on a private copy of this trial's workspace, in its result image"
      >
        Continue in a session…
      </button>
      {open ? (
        <ContinueDialog projectId={study.data.projectId} trial={trial} agent={agent} onClose={() => setOpen(false)} />
      ) : null}
    </>
  );
}
