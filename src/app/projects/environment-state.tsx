"use client";
import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "../_lib/trpc";

/**
 * A project's environment in the project list: its state and the next step — unless its folder is gone (or
 * unusable): then that is the state, and relinking or removing it the next step.
 */
export function EnvironmentState({ projectId, folderProblem }: { projectId: string; folderProblem: string | null }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.environments.overview.queryOptions({ projectId }));
  if (folderProblem)
    return (
      <span className="block" data-testid="project-environment">
        <span className="text-danger">folder unavailable</span> · next: relink or remove
      </span>
    );
  if (!overview.data) return null;
  const { versions } = overview.data;
  const active = versions.find((v) => v.active);
  const building = versions.find((v) => v.status === "building");
  const [state, next, tone] = building
    ? [`environment v${building.version} building`, "wait for it to finish", "text-warn-soft"]
    : active?.status === "ready"
      ? [`environment v${active.version} ready`, "next: start a study", "text-ok"]
      : versions[0]?.status === "failed"
        ? [`environment v${versions[0].version} failed`, "next: read its log and prepare again", "text-danger"]
        : ["no environment yet", "next: prepare it on the project page", "text-warn-soft"];
  return (
    <span className="block" data-testid="project-environment">
      <span className={tone}>{state}</span> · {next}
    </span>
  );
}
