import Link from "next/link";
import { EmptyState, PageHeader } from "../_components/ui";

export default function SessionsPage() {
  return (
    <>
      <PageHeader
        title="Sessions"
        description="Interactive Codex sessions and shells, attached to a project's environment."
      />
      <EmptyState title="No sessions yet">
        Sessions open from a project with a prepared environment.{" "}
        <Link href="/projects" className="text-accent underline">
          Choose a project
        </Link>{" "}
        to begin; saved chats can be resumed here later.
      </EmptyState>
    </>
  );
}
