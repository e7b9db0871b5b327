"use client";
import type { SetupCheckView } from "../../shared/setup-schemas";
import { BaseImageBuild } from "./base-image-build";

const statusStyle = { ok: "text-ok", warn: "text-warn-soft", fail: "text-danger" } as const;
const statusMark = { ok: "✓", warn: "!", fail: "✗" } as const;
const statusWord = { ok: "ready", warn: "warning", fail: "missing" } as const;
const ORDER = { fail: 0, warn: 1, ok: 2 } as const;

function Check({ check, isAdmin }: { check: SetupCheckView; isAdmin: boolean }) {
  return (
    <li className="min-w-0 rounded-lg border border-line px-4 py-3" aria-label={check.title}>
      <div className="flex flex-wrap items-baseline gap-2 text-sm">
        <span className={`font-mono ${statusStyle[check.status]}`} aria-hidden="true">
          {statusMark[check.status]}
        </span>
        <span className="font-medium">{check.title}</span>
        <span className={`text-xs ${statusStyle[check.status]}`}>{statusWord[check.status]}</span>
      </div>
      <p className="mt-1 text-sm text-muted [overflow-wrap:anywhere]">{check.detail}</p>
      {check.fix ? <p className="mt-1 text-sm text-warn-ink [overflow-wrap:anywhere]">Fix: {check.fix}</p> : null}
      {check.action === "build-base-image" && isAdmin ? <BaseImageBuild /> : null}
    </li>
  );
}

/**
 * The checklist: what is missing or needs attention first, each with what was found and its fix; the checks
 * that are ready fold into one line below them, so the one thing to do is never under seven green ticks.
 */
export function SetupChecklist({ checks, isAdmin }: { checks: SetupCheckView[]; isAdmin: boolean }) {
  const sorted = [...checks].sort((a, b) => ORDER[a.status] - ORDER[b.status]);
  const open = sorted.filter((check) => check.status !== "ok");
  const ready = sorted.filter((check) => check.status === "ok");
  return (
    <div className="grid gap-3">
      {open.length ? (
        <ul className="grid gap-3" aria-label="Setup checklist">
          {open.map((check) => (
            <Check key={check.id} check={check} isAdmin={isAdmin} />
          ))}
        </ul>
      ) : null}
      {ready.length ? (
        <details open={open.length === 0} data-testid="ready-checks">
          <summary className="cursor-pointer text-sm text-ok">
            {open.length === 0 ? `All ${ready.length} checks ready` : `${ready.length} more checks ready`}:{" "}
            <span className="text-muted">{ready.map((check) => check.title).join(", ")}</span>
          </summary>
          <ul className="mt-3 grid gap-3" aria-label={open.length ? "Ready checks" : "Setup checklist"}>
            {ready.map((check) => (
              <Check key={check.id} check={check} isAdmin={isAdmin} />
            ))}
          </ul>
        </details>
      ) : null}
    </div>
  );
}
