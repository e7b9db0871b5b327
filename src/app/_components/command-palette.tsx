"use client";
import { useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { useTRPC } from "../_lib/trpc";
import { focusRing } from "./ui";
import { useRole } from "./use-role";

interface Command {
  id: string;
  label: string;
  hint: string;
  href: string;
}

const PAGES: Command[] = [
  { id: "page-projects", label: "Projects", hint: "page", href: "/projects" },
  { id: "page-studies", label: "Studies", hint: "page", href: "/studies" },
  { id: "page-sessions", label: "Sessions", hint: "page", href: "/sessions" },
  { id: "page-system", label: "System", hint: "page", href: "/system" },
  { id: "page-setup", label: "Setup: checks and model access", hint: "page", href: "/setup" },
];
const ADMIN_ACTIONS: Command[] = [
  { id: "new-study", label: "New study", hint: "action", href: "/studies/new" },
  { id: "add-project", label: "Add a project", hint: "action", href: "/projects" },
  { id: "store-key", label: "Store an API key", hint: "action", href: "/setup" },
];

/** Everything the palette offers: pages, actions, and the projects and studies (fetched while it is open). */
function useCommands(open: boolean): Command[] {
  const trpc = useTRPC();
  const { isAdmin } = useRole();
  const projects = useQuery({ ...trpc.projects.list.queryOptions(), enabled: open });
  const studies = useQuery({ ...trpc.studies.list.queryOptions({}), enabled: open });
  return useMemo(
    () => [
      ...PAGES,
      ...(isAdmin ? ADMIN_ACTIONS : []),
      ...(projects.data ?? []).map((p) => ({
        id: `project-${p.id}`,
        label: p.name,
        hint: "project",
        href: `/projects/${p.id}`,
      })),
      ...(studies.data ?? []).map((s) => ({
        id: `study-${s.id}`,
        label: s.title,
        hint: `study · ${s.projectName}`,
        href: `/studies/${s.id}`,
      })),
    ],
    [isAdmin, projects.data, studies.data],
  );
}

/** Calls `toggle` on Ctrl-K (⌘-K on a Mac) anywhere in the dashboard. */
function useShortcut(toggle: () => void) {
  const latest = useRef(toggle);
  useEffect(() => {
    latest.current = toggle;
  });
  useEffect(() => {
    const onKey = (event: globalThis.KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && event.key.toLowerCase() === "k") {
        event.preventDefault();
        latest.current();
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
}

/** Ctrl/Cmd-K: jump to a page, project or study, or start a main action, by typing part of its name. */
export function CommandPalette() {
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const [text, setText] = useState("");
  const [active, setActive] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  const commands = useCommands(open);
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  const shown = commands
    .filter((c) => words.every((w) => `${c.label} ${c.hint}`.toLowerCase().includes(w)))
    .slice(0, 12);

  useShortcut(() => {
    setOpen((was) => !was);
    setText("");
    setActive(0);
  });
  useEffect(() => {
    if (open) input.current?.focus();
  }, [open]);

  const go = (command: Command | undefined) => {
    if (!command) return;
    setOpen(false);
    router.push(command.href);
  };
  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === "Escape") setOpen(false);
    else if (event.key === "ArrowDown") setActive((i) => Math.min(i + 1, shown.length - 1));
    else if (event.key === "ArrowUp") setActive((i) => Math.max(i - 1, 0));
    else if (event.key === "Enter") go(shown[active]);
    else return;
    event.preventDefault();
  };
  if (!open) return null;
  return (
    <div className="fixed inset-0 z-50 bg-black/50 p-4 pt-24" onClick={() => setOpen(false)}>
      <div
        role="dialog"
        aria-label="Command palette"
        className="mx-auto max-w-lg rounded-xl border border-line bg-panel p-2 shadow-xl"
        onClick={(event) => event.stopPropagation()}
      >
        <input
          ref={input}
          value={text}
          onChange={(event) => {
            setText(event.target.value);
            setActive(0);
          }}
          onKeyDown={onKeyDown}
          aria-label="Go to a project, study or page, or run an action"
          aria-controls="command-list"
          placeholder="Go to… (projects, studies, pages, actions)"
          className="w-full rounded-md border border-line bg-canvas px-3 py-2 text-sm outline-none focus:border-focus"
        />
        <ul id="command-list" role="listbox" aria-label="Commands" className="mt-2 max-h-80 overflow-y-auto">
          {shown.map((command, index) => (
            <li key={command.id} role="option" aria-selected={index === active}>
              <button
                type="button"
                tabIndex={-1}
                onMouseEnter={() => setActive(index)}
                onClick={() => go(command)}
                className={`flex w-full justify-between gap-3 rounded px-3 py-2 text-left text-sm ${index === active ? "bg-line" : ""} ${focusRing}`}
              >
                <span className="truncate">{command.label}</span>
                <span className="shrink-0 text-xs text-muted">{command.hint}</span>
              </button>
            </li>
          ))}
          {shown.length === 0 ? <li className="px-3 py-2 text-sm text-muted">Nothing matches “{text}”.</li> : null}
        </ul>
        <p className="px-3 pt-2 text-xs text-muted">↑↓ to choose, Enter to go, Esc to close · Ctrl/⌘-K</p>
      </div>
    </div>
  );
}
