import Link from "next/link";
import { EmptyState, PageHeader } from "../_components/ui";

export default function StudiesPage() {
  return (
    <>
      <PageHeader title="Studies" description="Experiments: several agent configurations on one task, judged by the same captured tests." />
      <EmptyState title="No studies yet">
        A study starts from a project with a prepared environment. <Link href="/projects" className="text-accent underline">Add a project</Link> first; every study anyone starts on this host appears here.
      </EmptyState>
    </>
  );
}
