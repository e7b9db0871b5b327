"use client";
import Link from "next/link";
import { buttonClass, focusRing, PageHeader, Panel } from "../../_components/ui";
import { useRole } from "../../_components/use-role";
import { ConfigurationsTable } from "./configurations-table";
import { LimitsPanel, StudyPanel } from "./study-fields";
import { TestFilesPicker } from "./test-files-picker";
import { useNewStudyForm, type NewStudyFormState } from "./use-new-study-form";

/** Create study, and next to it why it cannot be pressed now (create-study-readiness.ts) or what needs attention. */
function SubmitBar({ form }: { form: NewStudyFormState }) {
  const { creating, disabledReason, attempted, errors, formError } = form;
  return (
    <div className="flex flex-wrap items-center gap-x-4 gap-y-2">
      <button
        type="submit"
        className={`${buttonClass} ${focusRing}`}
        disabled={disabledReason !== null}
        aria-describedby={disabledReason ? "create-study-reason" : undefined}
      >
        {creating ? "Creating study…" : "Create study"}
      </button>
      {disabledReason ? (
        <span id="create-study-reason" role="status" className="text-sm text-muted" data-testid="create-study-reason">
          {disabledReason}
        </span>
      ) : null}
      {attempted && Object.keys(errors).length > 0 ? (
        <span className="text-sm text-danger" aria-live="polite">
          {Object.keys(errors).length === 1
            ? "One field needs attention."
            : `${Object.keys(errors).length} fields need attention.`}
        </span>
      ) : null}
      {formError ? (
        <span role="alert" className="text-sm text-danger">
          {formError}
        </span>
      ) : null}
    </div>
  );
}

/** "New study like this": which study filled the form (what it cannot copy said), or why it could not be read. */
function SourceNote({ form }: { form: NewStudyFormState }) {
  if (form.sourceError)
    return (
      <p role="alert" className="text-sm text-danger">
        Could not fill the form from that study: {form.sourceError}
      </p>
    );
  if (!form.source) return null;
  const overrides = form.source.configurations.some((configuration) => configuration.overrides.length > 0);
  return (
    <p className="text-sm text-muted" data-testid="new-study-source">
      Filled from{" "}
      <Link href={`/studies/${form.source.id}`} className="text-accent underline">
        {form.source.title}
      </Link>
      : change a configuration, add repeats. The test files are captured again from the project when you create it.
      {overrides ? " Its -c overrides are not copied (the form does not edit them)." : ""}
    </p>
  );
}

export function NewStudyForm({
  initialProjectId,
  fromStudyId,
}: {
  initialProjectId: string;
  fromStudyId: string | null;
}) {
  const { role } = useRole();
  const form = useNewStudyForm(initialProjectId, fromStudyId);
  const { draft, change, set, errors } = form;
  if (role === "viewer") {
    return (
      <>
        <PageHeader title="New study" />
        <p role="alert" className="text-sm text-warn-soft">
          This is a read-only viewer link: only the admin of this invariant-web can start studies.{" "}
          <Link href="/studies" className="text-accent underline">
            See the studies
          </Link>
          .
        </p>
      </>
    );
  }

  return (
    <>
      <PageHeader
        title="New study"
        description="Run several agent configurations on one task from one frozen snapshot, judged by the same captured tests."
      />
      <form
        onSubmit={form.submit}
        onKeyDown={form.preventEnterSubmit}
        aria-label="New study"
        noValidate
        // minmax(0, 1fr): a wide configurations table scrolls in its box instead of widening the page on a phone
        className="grid grid-cols-[minmax(0,1fr)] gap-6"
      >
        <SourceNote form={form} />
        <StudyPanel form={form} />
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
            defaults={form.defaults}
            errors={errors}
            onChange={(rows) => set("configurations", rows)}
          />
        </Panel>
        <LimitsPanel form={form} />
        <SubmitBar form={form} />
      </form>
    </>
  );
}
