import Link from "next/link";
import { headers } from "next/headers";
import { focusRing } from "./_components/ui";
import { missingPageCopy } from "./_lib/missing-page";

/**
 * Any address the dashboard has no page for, and pages whose id names no record (the server routes those here
 * with the kind of record they named): status 404, what is missing, where to go.
 */
export default async function NotFound() {
  const copy = missingPageCopy((await headers()).get("x-invariant-missing"));
  return (
    <div className="rounded-xl border border-dashed border-line p-10 text-center" data-testid="not-found">
      <p className="font-mono text-sm text-muted">404</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">{copy.title}</h1>
      <p className="mx-auto mt-2 max-w-xl break-words text-sm text-muted">{copy.message}</p>
      <p className="mt-4 flex flex-wrap justify-center gap-4 text-sm">
        {copy.links.map((link) => (
          <Link key={link.href} href={link.href} className={`text-accent underline ${focusRing}`}>
            {link.label}
          </Link>
        ))}
      </p>
    </div>
  );
}
