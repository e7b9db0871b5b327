"use client";
import { useQuery } from "@tanstack/react-query";
import type { ProjectFolderState, ProjectView } from "../../shared/project-schemas";
import { useTRPC } from "../_lib/trpc";

const FOLDER_STATE_TEXT: Record<Exclude<ProjectFolderState, "present">, string> = {
  missing: "folder gone",
  "not-a-folder": "not a folder",
  unreadable: "folder unreadable",
};

/**
 * A project's environment in the project list: its state and the next step — unless its folder is gone (or
 * unusable): then that is the state, and relinking or removing it the next step.
 */
export function EnvironmentState({ projectId, folder }: { projectId: string; folder: ProjectView["folder"] }) {
  const trpc = useTRPC();
  const overview = useQuery(trpc.environments.overview.queryOptions({ projectId }));
  if (folder.state !== "present")
    return (
      <span className="block" data-testid="project-environment">
        <span className="text-danger">{FOLDER_STATE_TEXT[folder.state]}</span> · next: relink or remove
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
