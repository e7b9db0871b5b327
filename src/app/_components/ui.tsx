import type { ReactNode } from "react";

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  return (
    // actions wrap under the title when the window is too narrow for both
    <div className="mb-6 flex flex-wrap items-end justify-between gap-4">
      <div>
        <h1 className="text-2xl font-semibold tracking-tight">{title}</h1>
        {description ? <p className="mt-1 text-sm text-muted">{description}</p> : null}
      </div>
      {actions}
    </div>
  );
}

export function Panel({
  title,
  children,
  className = "",
}: {
  title?: string;
  children: ReactNode;
  className?: string;
}) {
  return (
    <section className={`rounded-xl border border-line bg-panel p-5 ${className}`} aria-label={title}>
      {title ? <h2 className="mb-3 text-sm font-semibold uppercase tracking-wide text-muted">{title}</h2> : null}
      {children}
    </section>
  );
}

export function EmptyState({ title, children }: { title: string; children: ReactNode }) {
  return (
    <div className="rounded-xl border border-dashed border-line p-10 text-center">
      <h2 className="text-lg font-medium">{title}</h2>
      <div className="mx-auto mt-2 max-w-xl text-sm text-muted">{children}</div>
    </div>
  );
}

/** One labelled fact of a description list (`<dl>`); `className` styles the value. */
export function Fact({ label, children, className = "" }: { label: string; children: ReactNode; className?: string }) {
  return (
    <div>
      <dt className="text-xs uppercase tracking-wide text-muted">{label}</dt>
      <dd className={`mt-0.5 ${className} text-sm`}>{children}</dd>
    </div>
  );
}

export function FieldError({ id, message }: { id: string; message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm text-danger">
      {message}
    </p>
  );
}

/** A small spinning ring (decorative: say what is loading in text next to it). */
export function Spinner() {
  return (
    <span
      aria-hidden="true"
      className="inline-block h-4 w-4 animate-spin rounded-full border-2 border-line border-t-accent"
    />
  );
}

/** An error message that assistive technology announces (role="alert"); `className` adds spacing or size. */
export function ErrorMessage({ children, className = "text-sm" }: { children: ReactNode; className?: string }) {
  return (
    <p role="alert" className={`${className} text-danger`}>
      {children}
    </p>
  );
}

/** Focus ring for custom controls (buttons, rows, links) so keyboard users see where they are. */
export const focusRing = "focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-focus";

export const inputClass =
  "w-full rounded-md border border-line bg-canvas px-3 py-2 text-sm outline-none focus:border-focus";
export const buttonClass =
  "rounded-md bg-accent px-4 py-2 text-sm font-medium text-canvas hover:brightness-110 disabled:opacity-50";
export const secondaryButtonClass =
  "rounded-md border border-line px-4 py-2 text-sm hover:border-muted disabled:opacity-50";
/** A small bordered button inside a table row or a list item. */
export const smallButtonClass = `rounded border border-line px-2 py-1 text-xs hover:border-muted disabled:opacity-40 ${focusRing}`;
export const dangerButtonClass =
  "rounded-md border border-danger-strong/60 px-4 py-2 text-sm text-danger-soft hover:bg-danger-strong/10 disabled:opacity-50";

/** A box that stands out: what refused or broke (danger), or what blocks the next step (warn). */
export const dangerBoxClass =
  "rounded-md border border-danger-strong/60 bg-danger-strong/10 p-3 text-sm text-danger-ink";
export const warnBoxClass = "rounded-md border border-warn-strong/60 bg-warn-strong/10 p-3 text-sm text-warn-ink";
