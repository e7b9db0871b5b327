"use client";
import { useIsFetching } from "@tanstack/react-query";
import { useCallback, useEffect, useState } from "react";
import type { ProjectView } from "../../../shared/project-schemas";
import { SettingsFacts } from "./settings-facts";
import { SettingsForm } from "./settings-form";

/** The id of the Settings section: `#settings` in the address opens it. */
export const SETTINGS_ID = "settings";

/** Opens the Settings section from a link to it (also when the address already ends in #settings). */
export function openSettings(): void {
  if (window.location.hash === `#${SETTINGS_ID}`) window.dispatchEvent(new HashChangeEvent("hashchange"));
}

/**
 * The project's settings, collapsed near the bottom of its page (the page leads with the state and the next step):
 * the form for the admin, the values as text for viewers. `#settings` in the address opens it; closing it keeps an
 * unsaved draft (the form stays mounted), and the closed section says there is one.
 */
export function SettingsSection({ project, isAdmin }: { project: ProjectView; isAdmin: boolean }) {
  const [open, setOpen] = useState(false);
  const [dirty, setDirty] = useState(false);
  const onDirtyChange = useCallback((next: boolean) => setDirty(next), []);
  // scrolled to once the page's queries have answered: panels above it that are still loading would push it down
  const [scrollPending, setScrollPending] = useState(false);
  const fetching = useIsFetching();
  useEffect(() => {
    const follow = () => {
      if (window.location.hash !== `#${SETTINGS_ID}`) return;
      setOpen(true);
      setScrollPending(true);
    };
    follow();
    window.addEventListener("hashchange", follow);
    return () => window.removeEventListener("hashchange", follow);
  }, []);
  useEffect(() => {
    if (!scrollPending || fetching > 0) return;
    const frame = requestAnimationFrame(() => {
      setScrollPending(false);
      document.getElementById(SETTINGS_ID)?.scrollIntoView({ block: "start" });
    });
    return () => cancelAnimationFrame(frame);
  }, [scrollPending, fetching]);
  return (
    <section
      id={SETTINGS_ID}
      aria-label="Settings"
      className="mb-6 scroll-mt-6 rounded-xl border border-line bg-panel p-5"
    >
      <details open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
        <summary className="cursor-pointer">
          <h2 className="inline text-sm font-semibold uppercase tracking-wide text-muted">Settings</h2>
          <span className="ml-2 text-sm text-muted">
            {open ? "" : "name, network, limits, defaults, budget, containers"}
          </span>
          {dirty && !open ? (
            <span className="ml-2 text-sm text-warn-soft" data-testid="settings-unsaved">
              · unsaved changes
            </span>
          ) : null}
        </summary>
        <div className="mt-4">
          {isAdmin ? (
            <SettingsForm key={project.updatedAt} project={project} readOnly={false} onDirtyChange={onDirtyChange} />
          ) : (
            <SettingsFacts project={project} />
          )}
        </div>
      </details>
    </section>
  );
}
