"use client";
import { useQuery } from "@tanstack/react-query";
import type { ProjectView } from "../../shared/project-schemas";
import { useTRPC } from "../_lib/trpc";
import { projectNextStep } from "./project-next-step";

const TONE = { ok: "text-ok", warn: "text-warn-soft", danger: "text-danger" } as const;

/**
 * A project's environment in the project list: its state and the next step — unless its folder is gone (or
 * unusable): then that is the state, and relinking or removing it the next step (project-next-step.ts).
 */
export function EnvironmentState({ projectId, folder }: { projectId: string; folder: ProjectView["folder"] }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.environments.overview.queryOptions({ projectId }));
  if (folder.state === "present" && !overview.data) return null;
  const step = projectNextStep({ folderState: folder.state, versions: overview.data?.versions ?? [] });
  return (
    <span className="block" data-testid="project-environment">
      <span className={TONE[step.tone]}>{step.state}</span> · next: {step.next}
    </span>
  );
}
