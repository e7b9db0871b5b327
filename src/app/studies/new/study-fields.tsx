"use client";
import Link from "next/link";
import { describedBy, fieldInputClass, FormField } from "../../_components/form-field";
import { focusRing, Panel, warnBoxClass } from "../../_components/ui";
import { fieldId, type StudyDraft } from "./form-model";
import type { NewStudyFormState } from "./use-new-study-form";
import { DependencyWarning } from "./dependency-warning";
import { NoWorkerWarning } from "../../_components/system-health";

type FormProps = { form: NewStudyFormState };

/** The id and error a FormField needs for a top-level field of the draft. */
function fieldOf(form: NewStudyFormState, key: keyof StudyDraft) {
  return { id: fieldId(key), error: form.errors[key] };
}

/** Project and title; a project that cannot run a study yet says why. */
function ProjectAndTitle({ form }: FormProps) {
  const { draft, change, set, errors, projects, blocker } = form;
  const field = (key: keyof StudyDraft) => fieldOf(form, key);
  return (
    <>
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
        <div role="alert" data-testid="study-blocker" className={warnBoxClass}>
          <strong className="font-semibold">This project cannot run a study yet.</strong> {blocker}{" "}
          <Link href={`/projects/${draft.projectId}`} className={`text-accent underline ${focusRing}`}>
            Open the project page
          </Link>
        </div>
      ) : null}
      <DependencyWarning projectId={draft.projectId} />
      <NoWorkerWarning what="The study's preflight and trials" />
    </>
  );
}

/** The task prompt, the test command and where it writes JUnit XML. */
function TaskAndTests({ form }: FormProps) {
  const { draft, set, errors } = form;
  const field = (key: keyof StudyDraft) => fieldOf(form, key);
  return (
    <>
      <FormField {...field("taskPrompt")} label="Task" hint="The prompt every configuration receives, word for word.">
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
    </>
  );
}

export function StudyPanel({ form }: FormProps) {
  return (
    <Panel title="Study">
      <div className="grid gap-4">
        <ProjectAndTitle form={form} />
        <TaskAndTests form={form} />
      </div>
    </Panel>
  );
}

/** Trials at a time and the time limits; untouched fields show this host's defaults. */
export function LimitsPanel({ form }: FormProps) {
  const { set, errors, numbers, defaults: defaultsData } = form;
  const field = (key: keyof StudyDraft) => fieldOf(form, key);
  return (
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
        <FormField
          {...field("tokenBudget")}
          label="Token budget per trial"
          hint="Input + output tokens the model gateway allows each trial's agent; then it stops it (stopped: budget) and its work so far is evaluated. Starts at the project's budget."
        >
          <input
            id={fieldId("tokenBudget")}
            type="number"
            min={1000}
            step={1000}
            inputMode="numeric"
            className={fieldInputClass}
            value={numbers.tokenBudget}
            onChange={(e) => set("tokenBudget", e.target.value)}
            {...describedBy(fieldId("tokenBudget"), { hint: true, error: errors.tokenBudget })}
          />
        </FormField>
        <BudgetFields form={form} />
      </div>
      {defaultsData?.environment ? (
        <p className="mt-3 text-xs text-muted">
          Runs in environment v{defaultsData.environment.version}, frozen when the study is created.
        </p>
      ) : null}
    </Panel>
  );
}

/** The study's budget over all its trials, in tokens or dollars (priced by the System page's table); empty: none. */
function BudgetFields({ form }: FormProps) {
  const { draft, set, errors } = form;
  const fields = [
    [
      "budgetTokens",
      "budget.tokens",
      "Study budget (tokens)",
      "Tokens over all trials; when reached, the queued trials are stopped. Empty: none.",
      "1000",
    ],
    [
      "budgetMoney",
      "budget.money",
      "Study budget (US dollars)",
      "Dollars over all trials by the model price table (System page); every model needs a price. Empty: none.",
      "0.01",
    ],
  ] as const;
  return (
    <>
      {fields.map(([key, path, label, hint, step]) => (
        <FormField key={key} id={fieldId(path)} error={errors[path]} label={label} hint={hint}>
          <input
            id={fieldId(path)}
            type="number"
            min={0}
            step={step}
            inputMode="decimal"
            className={fieldInputClass}
            value={draft[key]}
            onChange={(e) => set(key, e.target.value)}
            {...describedBy(fieldId(path), { hint: true, error: errors[path] })}
          />
        </FormField>
      ))}
    </>
  );
}
