"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect } from "react";
import { useTRPC } from "./_lib/trpc";
import { setupSkipped } from "./setup/setup-skip";

/** The dashboard's front door: the setup checklist while something required is missing, else the projects. */
export default function Home() {
  const trpc = useTRPC();
  const router = useRouter();
  const status = useQuery({ ...trpc.setup.status.queryOptions(), retry: false });
  useEffect(() => {
    if (status.isPending) return;
    router.replace(status.data?.needed && !setupSkipped() ? "/setup" : "/projects");
  }, [status.isPending, status.data, router]);
  return <p className="text-sm text-muted">Opening invariant-web…</p>;
}
