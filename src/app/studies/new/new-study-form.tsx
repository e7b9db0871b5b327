"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent, type KeyboardEvent } from "react";
import { createStudyInputSchema } from "../../../shared/study-inputs";
import { buttonClass, PageHeader, Panel } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { focusRing } from "../study-format";
import { ConfigurationsTable } from "./configurations-table";
import { describedBy, fieldInputClass, FormField } from "../../_components/form-field";
import {
  emptyDraft,
  errorsFromServer,
  errorsFromZod,
  fieldId,
  firstErrorPath,
  resolvedNumbers,
  toInput,
  type FieldErrors,
  type StudyDraft,
} from "./form-model";
import { TestFilesPicker } from "./test-files-picker";

const NO_SUBMIT_ON_ENTER = new Set(["submit", "button", "reset", "file", "checkbox", "radio", "image"]);

/** Moves focus to the control of the first error (or its nearest enclosing field). */
function focusFirstError(errors: FieldErrors) {
  let path = firstErrorPath(errors);
  while (path) {
    const element = document.getElementById(fieldId(path));
    if (element) {
      element.focus();
      return;
    }
    path = path.includes(".") ? path.slice(0, path.lastIndexOf(".")) : null;
  }
}

function validate(draft: StudyDraft, defaults: Parameters<typeof toInput>[1]): FieldErrors {
  const parsed = createStudyInputSchema.safeParse(toInput(draft, defaults));
  return parsed.success ? {} : errorsFromZod(parsed.error);
}

export function NewStudyForm({ initialProjectId }: { initialProjectId: string }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { role, isAdmin } = useRole();
  const [draft, setDraft] = useState<StudyDraft>(() => emptyDraft(initialProjectId));
  const [attempted, setAttempted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const projects = useQuery(trpc.projects.list.queryOptions());
  const defaults = useQuery(
    trpc.studies.defaults.queryOptions({ projectId: draft.projectId }, { enabled: draft.projectId !== "" }),
  );
  const defaultsData = draft.projectId ? defaults.data : undefined;

  const create = useMutation(
    trpc.studies.create.mutationOptions({
      onSuccess: async (study) => {
        await queryClient.invalidateQueries({ queryKey: trpc.studies.list.queryKey() });
        router.push(`/studies/${study.id}`);
      },
      onError: (error) => {
        const described = describeError(error);
        const next = errorsFromServer(described);
        setServerErrors(next);
        setFormError(Object.keys(next).length === 0 ? described.message : null);
        focusFirstError(next);
      },
    }),
  );

  const clientErrors = useMemo(
    () => (attempted ? validate(draft, defaultsData) : {}),
    [attempted, draft, defaultsData],
  );
  const errors: FieldErrors = { ...clientErrors, ...serverErrors };
  const numbers = resolvedNumbers(draft, defaultsData);
  const blocker = defaultsData?.blocker ?? null;

  const change = (update: (current: StudyDraft) => StudyDraft) => {
    setServerErrors({});
    setFormError(null);
    setDraft(update);
  };
  const set = <K extends keyof StudyDraft>(key: K, value: StudyDraft[K]) =>
    change((current) => ({ ...current, [key]: value }));

  function submit(event: FormEvent) {
    event.preventDefault();
    setAttempted(true);
    const found = validate(draft, defaultsData);
    if (Object.keys(found).length > 0) {
      focusFirstError(found);
      return;
    }
    create.mutate(toInput(draft, defaultsData));
  }

  function preventEnterSubmit(event: KeyboardEvent<HTMLFormElement>) {
    const target = event.target;
    if (event.key === "Enter" && target instanceof HTMLInputElement && !NO_SUBMIT_ON_ENTER.has(target.type))
      event.preventDefault();
  }

  if (role === "viewer") {
    return (
      <>
        <PageHeader title="New study" />
        <p role="alert" className="text-sm text-amber-300">
          This is a read-only viewer link: only the admin of this invariant-web can start studies.{" "}
          <Link href="/studies" className="text-accent underline">
            See the studies
          </Link>
          .
        </p>
      </>
    );
  }

  const field = (key: keyof StudyDraft) => ({ id: fieldId(key), error: errors[key] });
  return (
    <>
      <PageHeader
        title="New study"
        description="Run several agent configurations on one task from one frozen snapshot, judged by the same captured tests."
      />
      <form onSubmit={submit} onKeyDown={preventEnterSubmit} aria-label="New study" noValidate className="grid gap-6">
        <Panel title="Study">
          <div className="grid gap-4">
            <div className="grid gap-4 md:grid-cols-2">
              <FormField {...field("projectId")} label="Project">
                <select
                  id={fieldId("projectId")}
                  className={fieldInputClass}
                  value={draft.projectId}
                  onChange={(e) => {
                    const projectId = e.target.value;
                    change((current) => ({
                      ...current,
                      projectId,
                      testFiles: current.testFiles.filter((file) => file.source === "upload"),
                    }));
                  }}
                  {...describedBy(fieldId("projectId"), { error: errors.projectId })}
                >
                  <option value="">{projects.isPending ? "Loading projects…" : "Choose a project"}</option>
                  {(projects.data ?? []).map((project) => (
                    <option key={project.id} value={project.id}>
                      {project.name}
                    </option>
                  ))}
                </select>
              </FormField>
              <FormField {...field("title")} label="Title">
                <input
                  id={fieldId("title")}
                  className={fieldInputClass}
                  value={draft.title}
                  onChange={(e) => set("title", e.target.value)}
                  placeholder="Fix the calendar bugs"
                  {...describedBy(fieldId("title"), { error: errors.title })}
                />
              </FormField>
            </div>
            {blocker ? (
              <div
                role="alert"
                data-testid="study-blocker"
                className="rounded-md border border-amber-500/60 bg-amber-500/10 p-3 text-sm text-amber-200"
              >
                <strong className="font-semibold">This project cannot run a study yet.</strong> {blocker}{" "}
                <Link href={`/projects/${draft.projectId}`} className={`text-accent underline ${focusRing}`}>
                  Open the project page
                </Link>
              </div>
            ) : null}
            <FormField
              {...field("taskPrompt")}
              label="Task"
              hint="The prompt every configuration receives, word for word."
            >
              <textarea
                id={fieldId("taskPrompt")}
                rows={6}
                className={fieldInputClass}
                value={draft.taskPrompt}
                onChange={(e) => set("taskPrompt", e.target.value)}
                {...describedBy(fieldId("taskPrompt"), { hint: true, error: errors.taskPrompt })}
              />
            </FormField>
            <div className="grid gap-4 md:grid-cols-2">
              <FormField
                {...field("testCommand")}
                label="Test command"
                hint="A Linux command run in the project root; its output is parsed for a verdict (exit code last)."
              >
                <input
                  id={fieldId("testCommand")}
                  className={`${fieldInputClass} font-mono`}
                  placeholder="npm test"
                  value={draft.testCommand}
                  onChange={(e) => set("testCommand", e.target.value)}
                  {...describedBy(fieldId("testCommand"), { hint: true, error: errors.testCommand })}
                />
              </FormField>
              <FormField
                {...field("junitPath")}
                label="JUnit path"
                hint="Optional: a JUnit XML file the test command writes, relative to the project."
              >
                <input
                  id={fieldId("junitPath")}
                  className={`${fieldInputClass} font-mono`}
                  placeholder="reports/junit.xml"
                  value={draft.junitPath}
                  onChange={(e) => set("junitPath", e.target.value)}
                  {...describedBy(fieldId("junitPath"), { hint: true, error: errors.junitPath })}
                />
              </FormField>
            </div>
          </div>
        </Panel>

        <Panel title="Fixed test files">
          <TestFilesPicker
            projectId={draft.projectId}
            files={draft.testFiles}
            errors={errors}
            onChange={(update) => change((current) => ({ ...current, testFiles: update(current.testFiles) }))}
          />
        </Panel>

        <Panel title="Configurations">
          <ConfigurationsTable
            rows={draft.configurations}
            defaults={defaultsData}
            errors={errors}
            onChange={(rows) => set("configurations", rows)}
          />
        </Panel>

        <Panel title="Limits">
          <div className="grid gap-4 md:grid-cols-3">
            <FormField
              {...field("concurrency")}
              label="Concurrency"
              hint={defaultsData?.concurrencyReasoning ?? "Trials at a time; the default depends on this host."}
            >
              <input
                id={fieldId("concurrency")}
                type="number"
                min={1}
                max={32}
                inputMode="numeric"
                className={fieldInputClass}
                value={numbers.concurrency}
                onChange={(e) => set("concurrency", e.target.value)}
                {...describedBy(fieldId("concurrency"), { hint: true, error: errors.concurrency })}
              />
            </FormField>
            <FormField {...field("agentTimeoutSec")} label="Agent time limit (seconds)">
              <input
                id={fieldId("agentTimeoutSec")}
                type="number"
                min={10}
                inputMode="numeric"
                className={fieldInputClass}
                value={numbers.agentTimeoutSec}
                onChange={(e) => set("agentTimeoutSec", e.target.value)}
                {...describedBy(fieldId("agentTimeoutSec"), { error: errors.agentTimeoutSec })}
              />
            </FormField>
            <FormField {...field("evalTimeoutSec")} label="Evaluation time limit (seconds)">
              <input
                id={fieldId("evalTimeoutSec")}
                type="number"
                min={5}
                inputMode="numeric"
                className={fieldInputClass}
                value={numbers.evalTimeoutSec}
                onChange={(e) => set("evalTimeoutSec", e.target.value)}
                {...describedBy(fieldId("evalTimeoutSec"), { error: errors.evalTimeoutSec })}
              />
            </FormField>
          </div>
          {defaultsData?.environment ? (
            <p className="mt-3 text-xs text-muted">
              Runs in environment v{defaultsData.environment.version}, frozen when the study is created.
            </p>
          ) : null}
        </Panel>

        <div className="flex items-center gap-4">
          <button
            type="submit"
            className={`${buttonClass} ${focusRing}`}
            disabled={create.isPending || blocker !== null || !isAdmin}
          >
            {create.isPending ? "Creating study…" : "Create study"}
          </button>
          {attempted && Object.keys(errors).length > 0 ? (
            <span className="text-sm text-red-400" aria-live="polite">
              {Object.keys(errors).length === 1
                ? "One field needs attention."
                : `${Object.keys(errors).length} fields need attention.`}
            </span>
          ) : null}
          {formError ? (
            <span role="alert" className="text-sm text-red-400">
              {formError}
            </span>
          ) : null}
        </div>
      </form>
    </>
  );
}
