"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, useSyncExternalStore, type FormEvent } from "react";
import {
  isAgentSession,
  SESSION_KINDS,
  type AgentSessionKind,
  type SessionKind,
  type SessionMode,
} from "../../shared/session-schemas";
import { HARNESS_INFO } from "../../shared/harness-kinds";
import { describeError } from "../_lib/errors";
import { useTRPC } from "../_lib/trpc";
import { FormField } from "../_components/form-field";
import { buttonClass, dangerBoxClass, ErrorMessage, inputClass } from "../_components/ui";

const NAME_KEY = "invariant-web:session-name";

/** sessions.start, then the session's page (which has the session at once, without asking for it again). */
function useStartSession() {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  return useMutation(
    trpc.sessions.start.mutationOptions({
      onSuccess: (session) => {
        queryClient.setQueryData(trpc.sessions.get.queryKey({ sessionId: session.id }), session);
        router.push(`/sessions/${session.id}`);
      },
    }),
  );
}

/** Starts a session (Codex, Claude Code, Gemini CLI or a shell; direct or a private copy) and opens its terminal. */
export function StartSessionForm({ projectId: fixedProject }: { projectId?: string }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.projects.list.queryOptions(undefined, { enabled: !fixedProject }));
  const [projectId, setProjectId] = useState(fixedProject ?? "");
  const [kind, setKind] = useState<SessionKind>("codex");
  const [mode, setMode] = useState<SessionMode>("private");
  const [model, setModel] = useState("");
  // the name given last time (this browser), until the user types another
  const remembered = useSyncExternalStore(
    () => () => undefined,
    () => window.localStorage.getItem(NAME_KEY) ?? "",
    () => "",
  );
  const [typedName, setName] = useState<string | null>(null);
  const name = typedName ?? remembered;
  const chosen = fixedProject ?? (projectId || projects.data?.[0]?.id || "");
  const project = useQuery(trpc.projects.get.queryOptions({ id: chosen }, { enabled: chosen !== "" }));
  // the project's default model, for the agent its default configuration names (the server takes the same)
  const defaults = project.data?.defaultConfiguration;
  const defaultModel = defaults && defaults.harness === kind ? defaults.model : "";
  // a session starts from the project's folder: one that is gone is said before Start, not after
  const folderProblem = project.data?.folder.problem ?? null;
  const start = useStartSession();
  const problem = start.error ? describeError(start.error) : null;

  function submit(event: FormEvent) {
    event.preventDefault();
    window.localStorage.setItem(NAME_KEY, name.trim());
    start.mutate({ projectId: chosen, kind, mode, model: model.trim(), startedBy: name.trim() });
  }

  return (
    <form onSubmit={submit} className="grid gap-4 sm:grid-cols-2 [&>*]:min-w-0" aria-label="Start a session">
      {fixedProject ? null : (
        <FormField id="session-project" label="Project" error={problem?.field === "projectId" ? problem.message : null}>
          <select
            id="session-project"
            className={inputClass}
            value={chosen}
            onChange={(e) => setProjectId(e.target.value)}
          >
            {(projects.data ?? []).map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </FormField>
      )}
      <KindAndMode kind={kind} mode={mode} onKind={setKind} onMode={setMode} />
      {isAgentSession(kind) ? (
        <ModelField
          kind={kind}
          model={model}
          defaultModel={defaultModel}
          error={problem?.field === "model" ? problem.message : null}
          onModel={setModel}
        />
      ) : null}
      <FormField id="session-name" label="Your name" hint="Shown to others as who started it." error={null}>
        <input
          id="session-name"
          className={inputClass}
          value={name}
          maxLength={100}
          onChange={(e) => setName(e.target.value)}
        />
      </FormField>
      <SubmitRow
        pending={start.isPending}
        disabled={chosen === ""}
        folderProblem={folderProblem}
        message={problem && !problem.field ? problem.message : null}
      />
    </form>
  );
}

/** The agent's model: empty takes the project's default for that agent; the placeholder shows it, or an example. */
function ModelField(props: {
  kind: AgentSessionKind;
  model: string;
  defaultModel: string;
  error: string | null;
  onModel: (model: string) => void;
}) {
  const { kind, defaultModel } = props;
  return (
    <FormField
      id="session-model"
      label="Model"
      hint={
        defaultModel
          ? `Empty: the project's default, ${defaultModel}.`
          : `The project names no default model for ${HARNESS_INFO[kind].label}: name one.`
      }
      error={props.error}
    >
      <input
        id="session-model"
        className={inputClass}
        value={props.model}
        placeholder={defaultModel || HARNESS_INFO[kind].exampleModel}
        onChange={(e) => props.onModel(e.target.value)}
      />
    </FormField>
  );
}

/** Start — not offered for a project whose folder is gone (said here, with what to do) — and a refusal. */
function SubmitRow(props: {
  pending: boolean;
  disabled: boolean;
  folderProblem: string | null;
  message: string | null;
}) {
  return (
    <>
      {props.folderProblem ? (
        <p role="alert" className={`${dangerBoxClass} sm:col-span-2`} data-testid="session-folder-problem">
          {props.folderProblem}
        </p>
      ) : null}
      <div className="flex flex-wrap items-center gap-3 sm:col-span-2">
        <button
          type="submit"
          className={`shrink-0 ${buttonClass}`}
          disabled={props.pending || props.disabled || props.folderProblem !== null}
        >
          {props.pending ? "Starting…" : "Start session"}
        </button>
        {props.message ? <ErrorMessage>{props.message}</ErrorMessage> : null}
      </div>
    </>
  );
}

/** An agent's TUI or a shell; the project directory itself or a private copy. */
function KindAndMode(props: {
  kind: SessionKind;
  mode: SessionMode;
  onKind: (kind: SessionKind) => void;
  onMode: (mode: SessionMode) => void;
}) {
  return (
    <>
      <fieldset>
        <legend className="mb-1 text-sm text-muted">Run</legend>
        <div className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
          {SESSION_KINDS.map((value) => (
            <label key={value} className="flex items-center gap-1.5">
              <input
                type="radio"
                name="session-kind"
                checked={props.kind === value}
                onChange={() => props.onKind(value)}
              />
              {isAgentSession(value) ? HARNESS_INFO[value].label : "A shell"}
            </label>
          ))}
        </div>
      </fieldset>
      <fieldset>
        <legend className="mb-1 text-sm text-muted">Files</legend>
        <div className="flex flex-col gap-1 text-sm">
          <label className="flex items-center gap-1.5">
            <input
              type="radio"
              name="session-mode"
              checked={props.mode === "private"}
              onChange={() => props.onMode("private")}
            />
            Private copy — review and apply its changes later
          </label>
          <label className="flex items-center gap-1.5">
            <input
              type="radio"
              name="session-mode"
              checked={props.mode === "direct"}
              onChange={() => props.onMode("direct")}
            />
            Direct — edit the project directory itself (one at a time)
          </label>
        </div>
      </fieldset>
    </>
  );
}
