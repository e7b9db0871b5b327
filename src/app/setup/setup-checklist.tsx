"use client";
import type { SetupCheckView } from "../../shared/setup-schemas";
import { BaseImageBuild } from "./base-image-build";

const statusStyle = { ok: "text-ok", warn: "text-warn-soft", fail: "text-danger" } as const;
const statusMark = { ok: "✓", warn: "!", fail: "✗" } as const;
const statusWord = { ok: "ready", warn: "warning", fail: "missing" } as const;

/** The checklist: each check with what was found and, when it is not ok, its fix. */
export function SetupChecklist({ checks, isAdmin }: { checks: SetupCheckView[]; isAdmin: boolean }) {
  return (
    <ul className="grid gap-3" aria-label="Setup checklist">
      {checks.map((check) => (
        <li key={check.id} className="rounded-lg border border-line px-4 py-3" aria-label={check.title}>
          <div className="flex flex-wrap items-baseline gap-2 text-sm">
            <span className={`font-mono ${statusStyle[check.status]}`} aria-hidden="true">
              {statusMark[check.status]}
            </span>
            <span className="font-medium">{check.title}</span>
            <span className={`text-xs ${statusStyle[check.status]}`}>{statusWord[check.status]}</span>
          </div>
          <p className="mt-1 break-words text-sm text-muted">{check.detail}</p>
          {check.fix ? <p className="mt-1 text-sm text-warn-ink">Fix: {check.fix}</p> : null}
          {check.action === "build-base-image" && isAdmin ? <BaseImageBuild /> : null}
        </li>
      ))}
    </ul>
  );
}
