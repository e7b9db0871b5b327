import { Spinner } from "./_components/ui";

/** Shown while a page's server part loads (pages then show their own loading lines for their data). */
export default function Loading() {
  return (
    <p role="status" className="flex items-center gap-2 text-sm text-muted">
      <Spinner />
      Loading…
    </p>
  );
}
