import type { ProjectView } from "../../../shared/project-schemas";
import { Fact } from "../../_components/ui";
import { formatBytes } from "../../_lib/format";

/** A project's settings as text, for viewers (who cannot change them): no inputs without a Save button. */
export function SettingsFacts({ project }: { project: ProjectView }) {
  const configuration = project.defaultConfiguration;
  return (
    <dl className="grid gap-4 md:grid-cols-3" aria-label="Project settings">
      <Fact label="Name">{project.name}</Fact>
      <Fact label="Network mode">{project.networkMode}</Fact>
      <Fact label="Base image">
        <span className="font-mono">{project.baseImage ?? "the default base image"}</span>
      </Fact>
      <Fact label="CPUs">{project.cpus}</Fact>
      <Fact label="Memory">{formatBytes(project.memoryBytes)}</Fact>
      <Fact label="Extra swap">{formatBytes(project.swapBytes)}</Fact>
      <Fact label="Processes">{project.pids.toLocaleString("en-US")}</Fact>
      <Fact label="Open files">{project.openFiles.toLocaleString("en-US")}</Fact>
      <Fact label="Disk budget per container">{formatBytes(project.diskBudgetBytes)}</Fact>
      <Fact label="Default configuration">
        {configuration.harness} · {configuration.model || "no model set"} · {configuration.reasoningEffort}
      </Fact>
      <Fact label="Token budget per run">{project.runTokenBudget.toLocaleString("en-US")}</Fact>
      <Fact label="Hosted tools">
        {project.allowHostedTools || project.networkMode === "internet" ? "allowed" : "refused"}
      </Fact>
      <Fact label="Containers run as">{project.runAsRoot ? "root" : "the host user"}</Fact>
    </dl>
  );
}
