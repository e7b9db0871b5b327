"use client";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useMemo, useState, type FormEvent, type KeyboardEvent } from "react";
import { createStudyInputSchema } from "../../../shared/study-inputs";
import { useRole } from "../../_components/use-role";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { createStudyBlockedReason } from "./create-study-readiness";
import {
  draftFromStudy,
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

/** "New study like this": the form is filled once from the study it names. */
function usePrefill(fromStudyId: string | null, setDraft: (draft: StudyDraft) => void) {
  const trpc = useTRPC();
  const source = useQuery(trpc.studies.get.queryOptions({ studyId: fromStudyId ?? "" }, { enabled: !!fromStudyId }));
  const [prefilledFrom, setPrefilledFrom] = useState<string | null>(null);
  if (source.data && prefilledFrom !== source.data.id) {
    setPrefilledFrom(source.data.id);
    setDraft(draftFromStudy(source.data));
  }
  return source;
}

/** Refetch a blocked project's defaults and environment this often, so the form sees it become ready. */
const BLOCKED_REFETCH_MS = 4_000;

/**
 * The projects to choose from, the chosen project's defaults (with its blocker, refetched while there is one), and
 * what of Create study's readiness they tell: the role, the defaults' state, the folder problem, the blocker, and
 * the version of the environment being prepared, if one is.
 */
function useProjectReadiness(projectId: string) {
  const trpc = useTRPC();
  const { role } = useRole();
  const projects = useQuery(trpc.projects.list.queryOptions());
  const defaults = useQuery(
    trpc.studies.defaults.queryOptions(
      { projectId },
      {
        enabled: projectId !== "",
        refetchInterval: (query) => (query.state.data?.blocker ? BLOCKED_REFETCH_MS : false),
      },
    ),
  );
  const blocker = (projectId ? defaults.data?.blocker : null) ?? null;
  const overview = useQuery(
    trpc.environments.overview.queryOptions(
      { projectId },
      { enabled: blocker !== null, refetchInterval: blocker !== null ? BLOCKED_REFETCH_MS : false },
    ),
  );
  const building = blocker ? overview.data?.versions.find((version) => version.status === "building") : undefined;
  const readiness = {
    role,
    defaults: defaults.error
      ? { error: describeError(defaults.error).message }
      : defaults.data
        ? ("loaded" as const)
        : ("loading" as const),
    folderProblem: projects.data?.find((project) => project.id === projectId)?.folder.problem ?? null,
    blocker,
    buildingVersion: building?.version ?? null,
  };
  return { projects, defaults, readiness };
}

export type NewStudyFormState = ReturnType<typeof useNewStudyForm>;

/**
 * The new study form's state: the draft, its errors (the client's after a first submit, then the
 * server's), the project's defaults and blocker, why Create study cannot be pressed now (`disabledReason`), and
 * `submit`, which validates, creates the study and opens it (or moves focus to the first field that needs attention).
 */
export function useNewStudyForm(initialProjectId: string, fromStudyId: string | null = null) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const [draft, setDraft] = useState<StudyDraft>(() => emptyDraft(initialProjectId));
  const source = usePrefill(fromStudyId, setDraft);
  const [attempted, setAttempted] = useState(false);
  const [serverErrors, setServerErrors] = useState<FieldErrors>({});
  const [formError, setFormError] = useState<string | null>(null);
  const { projects, defaults, readiness } = useProjectReadiness(draft.projectId);
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
  const blocker = readiness.blocker;
  const disabledReason = createStudyBlockedReason({
    ...readiness,
    creating: create.isPending,
    projectId: draft.projectId,
  });

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

  return {
    draft,
    change,
    set,
    submit,
    preventEnterSubmit,
    errors,
    attempted,
    formError,
    numbers,
    blocker,
    disabledReason,
    projects,
    defaults: defaultsData,
    creating: create.isPending,
    /** The study the form was filled from ("New study like this"), once loaded; its load error otherwise. */
    source: source.data ?? null,
    sourceError: source.error ? describeError(source.error).message : null,
  };
}
