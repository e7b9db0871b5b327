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
    <div className="mb-6 flex items-end justify-between gap-4">
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

export function FieldError({ id, message }: { id: string; message: string | null | undefined }) {
  if (!message) return null;
  return (
    <p id={id} role="alert" className="mt-1 text-sm text-red-400">
      {message}
    </p>
  );
}

export const inputClass =
  "w-full rounded-md border border-line bg-[#0b0d12] px-3 py-2 text-sm outline-none focus:border-accent";
export const buttonClass =
  "rounded-md bg-accent px-4 py-2 text-sm font-medium text-[#0b0d12] hover:brightness-110 disabled:opacity-50";
export const secondaryButtonClass =
  "rounded-md border border-line px-4 py-2 text-sm hover:border-muted disabled:opacity-50";
export const dangerButtonClass =
  "rounded-md border border-red-500/60 px-4 py-2 text-sm text-red-300 hover:bg-red-500/10 disabled:opacity-50";
