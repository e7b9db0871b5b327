import Link from "next/link";
import { focusRing } from "./_components/ui";

/** Any URL the dashboard has no page for. */
export default function NotFound() {
  return (
    <div className="rounded-xl border border-dashed border-line p-10 text-center">
      <p className="font-mono text-sm text-muted">404</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">Page not found</h1>
      <p className="mx-auto mt-2 max-w-xl text-sm text-muted">
        There is no page at this address.{" "}
        <Link href="/projects" className={`text-accent underline ${focusRing}`}>
          Go to the projects
        </Link>{" "}
        or pick a section above.
      </p>
    </div>
  );
}
