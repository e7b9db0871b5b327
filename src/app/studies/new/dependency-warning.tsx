"use client";
import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { focusRing, warnBoxClass } from "../../_components/ui";
import { useTRPC } from "../../_lib/trpc";

/** The project's dependency warning (not installed, or a manifest changed since), with a link to where they are installed. */
export function DependencyWarning({ projectId }: { projectId: string }) {
  const trpc = useTRPC();
  const status = useQuery(
    trpc.dependencies.status.queryOptions({ projectId }, { enabled: projectId !== "", staleTime: 5_000 }),
  );
  const warning = status.data?.warning;
  if (!projectId || !warning) return null;
  return (
    <div role="status" data-testid="dependency-warning" className={warnBoxClass}>
      <strong className="font-semibold">Dependencies:</strong> {warning}{" "}
      <Link href={`/projects/${projectId}#dependencies`} className={`text-accent underline ${focusRing}`}>
        Open the project page
      </Link>
    </div>
  );
}
