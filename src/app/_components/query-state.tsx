import type { ReactNode } from "react";
import { describeError } from "../_lib/errors";

/** The parts of a react-query result that decide what to show. */
export interface QueryLike<T> {
  data: T | undefined;
  error: unknown;
  isPending: boolean;
}

/**
 * What a query shows around its data: a loading line, the error (as an alert; above the data a failed
 * refetch kept), or an empty state; else `children` with the data. `compact` uses the small text of a panel.
 */
export function QueryState<T>({
  query,
  loading,
  errorPrefix,
  errorExtra,
  isEmpty,
  empty,
  missing = "Not found.",
  compact = false,
  children,
}: {
  query: QueryLike<T>;
  /** e.g. "Loading projects…" */
  loading: ReactNode;
  /** e.g. "Could not load projects" (the error's message follows after a colon). */
  errorPrefix?: string;
  /** Shown after the error message, e.g. a link back. */
  errorExtra?: ReactNode;
  isEmpty?: (data: T) => boolean;
  empty?: ReactNode;
  /** Said when the query has neither data nor an error (e.g. it is disabled). */
  missing?: string;
  compact?: boolean;
  children: (data: T) => ReactNode;
}) {
  const size = compact ? "text-sm " : "";
  if (query.isPending) return <p className={`${size}text-muted`}>{loading}</p>;
  const message = query.error ? describeError(query.error).message : query.data === undefined ? missing : null;
  const alert =
    message === null ? null : (
      <p role="alert" className={`${size}text-danger`}>
        {errorPrefix ? `${errorPrefix}: ${message}` : message}
        {errorExtra ? <> {errorExtra}</> : null}
      </p>
    );
  // a refetch that failed keeps the data it had: show both
  if (query.data === undefined) return alert;
  return (
    <>
      {alert}
      {isEmpty?.(query.data) ? empty : children(query.data)}
    </>
  );
}
