"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "../../../server/web/trpc/app-router";
import { ErrorMessage, secondaryButtonClass, warnBoxClass } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { useTRPC } from "../../_lib/trpc";

type Usable = Extract<inferRouterOutputs<AppRouter>["environments"]["devcontainer"], { state: "usable" }>;

/** One line of what the devcontainer.json gives: its image or Dockerfile, containerEnv, remoteUser, commands. */
function summaryOf(record: Usable["record"]): string {
  const parts = [
    record.image
      ? `image ${record.image}`
      : record.dockerfile
        ? `Dockerfile ${record.dockerfile.path} (context ${record.dockerfile.context})`
        : "",
    record.containerEnv.length > 0 ? `containerEnv ${record.containerEnv.join(", ")}` : "",
    record.remoteUser ? `remoteUser ${record.remoteUser}` : "",
    record.commands.length > 0 ? record.commands.map((command) => command.key).join(", ") : "",
  ];
  return parts.filter(Boolean).join(" · ");
}

/**
 * "Prepare from devcontainer.json" when the project has one: what it gives, the keys that do nothing
 * here, or every reason it cannot be used (each naming its key). Nothing when the project has none.
 */
export function DevcontainerOption({
  projectId,
  building,
  refresh,
  readOnly,
}: {
  projectId: string;
  building: boolean;
  refresh: () => Promise<void>;
  readOnly: boolean;
}) {
  const trpc = useTRPC();
  const status = useQuery(trpc.environments.devcontainer.queryOptions({ projectId }));
  const prepare = useMutation(trpc.environments.prepareFromDevcontainer.mutationOptions({ onSuccess: refresh }));
  const data = status.data;
  if (!data || data.state === "none") return null;
  if (data.state === "refused")
    return (
      <section className={`${warnBoxClass} mb-4`} aria-label="devcontainer.json" role="status">
        <p className="font-medium">
          <span className="font-mono">{data.file}</span> cannot be used to prepare the environment:
        </p>
        <ul className="mt-1 list-disc pl-5 break-words">
          {data.problems.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      </section>
    );
  return (
    <section className="mb-4 grid gap-2" aria-label="devcontainer.json">
      <p className="text-sm break-words text-muted">
        This project has <span className="font-mono text-ink">{data.file}</span>: {summaryOf(data.record)}.
      </p>
      {data.record.ignored.length > 0 ? (
        <ul className="list-disc pl-5 text-xs break-words text-muted">
          {data.record.ignored.map((ignored) => (
            <li key={ignored.key}>
              Ignored <span className="font-mono">{ignored.key}</span>: {ignored.reason}.
            </li>
          ))}
        </ul>
      ) : null}
      {!readOnly ? (
        <div>
          <button
            type="button"
            className={secondaryButtonClass}
            disabled={building || prepare.isPending}
            onClick={() => prepare.mutate({ projectId })}
          >
            Prepare from devcontainer.json
          </button>
        </div>
      ) : null}
      {prepare.error ? <ErrorMessage>{describeError(prepare.error).message}</ErrorMessage> : null}
    </section>
  );
}
