import type { ReactNode } from "react";
import { FieldError } from "./ui";

/** A labelled control with its hint and its error message right below it. */
export function FormField({
  id,
  label,
  hint,
  error,
  children,
}: {
  id: string;
  label: ReactNode;
  hint?: ReactNode;
  error: string | null | undefined;
  children: ReactNode;
}) {
  return (
    <div>
      <label htmlFor={id} className="mb-1 block text-sm text-muted">
        {label}
      </label>
      {children}
      {hint ? (
        <p id={`${id}-hint`} className="mt-1 text-xs text-muted">
          {hint}
        </p>
      ) : null}
      <FieldError id={`${id}-error`} message={error} />
    </div>
  );
}

/** aria attributes that tie a control to its hint and error. */
export function describedBy(
  id: string,
  options: { hint?: boolean; error?: string | null | undefined },
): { "aria-describedby"?: string; "aria-invalid"?: true } {
  const ids = [options.hint ? `${id}-hint` : null, options.error ? `${id}-error` : null].filter(Boolean);
  return {
    ...(ids.length > 0 ? { "aria-describedby": ids.join(" ") } : {}),
    ...(options.error ? { "aria-invalid": true as const } : {}),
  };
}

export const fieldInputClass =
  "w-full rounded-md border border-line bg-canvas px-3 py-2 text-sm outline-none focus:border-focus focus:ring-1 focus:ring-focus aria-[invalid=true]:border-danger-strong/70";
