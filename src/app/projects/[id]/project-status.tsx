"use client";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import type { ProjectView } from "../../../shared/project-schemas";
import { buttonClass, ErrorMessage, focusRing, Panel } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";
import { projectNextStep, type ProjectNextStep } from "../project-next-step";
import { BuildProgress } from "./build-progress";
import { FolderProblemBanner } from "./folder-problem-banner";
import { ENVIRONMENT_PANEL_ID } from "./environment-panel";
import type { ProjectEnvironment } from "./use-environment";

const TONE = { ok: "text-ok", warn: "text-warn-soft", danger: "text-danger" } as const;
const linkClass = `text-sm text-accent underline ${focusRing}`;

/** What the state means, in a sentence: what the next step does. */
function explanation(step: ProjectNextStep, env: ProjectEnvironment): string {
  switch (step.kind) {
    case "prepare-environment":
      return "Preparing builds version 1 from the base image: the Codex CLI and a home directory that persists. Studies and sessions run in it.";
    case "wait-for-build":
      return "Studies and sessions can start once it is ready.";
    case "new-study":
      return "Start a study: several agent configurations on one task, judged by the same tests. Sessions run in it too.";
    case "prepare-again": {
      const failed = env.versions[0];
      return `${failed?.error ? `${failed.error} ` : ""}Read its log, fix the cause (the base image, the settings), and prepare again.`;
    }
    case "fix-folder": // the folder banner says it (with Relink…), in place of this status
      return "Relink the project to its folder's new path, or remove it.";
  }
}

/** The one primary action for the state: prepare (again), or a new study; none while a build runs. */
function NextAction({ projectId, step, env }: { projectId: string; step: ProjectNextStep; env: ProjectEnvironment }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const prepare = useMutation(
    trpc.environments.prepare.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.environments.pathKey() }),
    }),
  );
  const logLink = (versionId: string | undefined) => (
    <a href={`#${ENVIRONMENT_PANEL_ID}`} className={linkClass} onClick={() => versionId && env.showLog(versionId)}>
      Read the build log
    </a>
  );
  if (step.kind === "new-study")
    return (
      <Link href={`/studies/new?projectId=${encodeURIComponent(projectId)}`} className={`${buttonClass} ${focusRing}`}>
        New study
      </Link>
    );
  if (step.kind === "wait-for-build") return logLink(env.building?.id);
  if (step.kind !== "prepare-environment" && step.kind !== "prepare-again") return null;
  return (
    <>
      <button
        type="button"
        className={`${buttonClass} ${focusRing}`}
        disabled={prepare.isPending}
        onClick={() => prepare.mutate({ projectId })}
      >
        {step.kind === "prepare-again" ? "Prepare again" : "Prepare environment"}
      </button>
      {step.kind === "prepare-again" ? logLink(env.versions[0]?.id) : null}
      {prepare.error ? (
        <ErrorMessage className="basis-full text-sm">{describeError(prepare.error).message}</ErrorMessage>
      ) : null}
    </>
  );
}

/**
 * The top of the project page: the project's state in a few words (its environment, or its folder when that is
 * gone: then the folder banner, whose Relink… is the next action), what that means, and the one next action the
 * state calls for (project-next-step.ts).
 */
export function ProjectStatus({
  project,
  env,
  isAdmin,
}: {
  project: ProjectView;
  env: ProjectEnvironment;
  isAdmin: boolean;
}) {
  if (project.folder.problem) return <FolderProblemBanner project={project} isAdmin={isAdmin} />;
  if (env.overview.isPending)
    return (
      <Panel title="Status" className="mb-6">
        <p className="text-sm text-muted">Loading environment…</p>
      </Panel>
    );
  const step = projectNextStep({ folderState: project.folder.state, versions: env.versions });
  const state = step.state.charAt(0).toUpperCase() + step.state.slice(1);
  return (
    <Panel title="Status" className="mb-6">
      <div data-testid="project-status" data-next-step={step.kind}>
        <p className={`text-lg font-medium ${TONE[step.tone]}`} data-testid="project-state">
          {state}
        </p>
        <p className="mt-1 mb-3 text-sm text-muted">{explanation(step, env)}</p>
        {env.building ? <BuildProgress version={env.building.version} progress={env.progress} /> : null}
        {isAdmin ? (
          <div className="flex flex-wrap items-center gap-3" data-testid="project-next-action">
            <NextAction projectId={project.id} step={step} env={env} />
          </div>
        ) : null}
      </div>
    </Panel>
  );
}
