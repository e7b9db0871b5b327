"use client";
import Link from "next/link";
import { usePathname } from "next/navigation";
import { useRole } from "./use-role";

const links = [
  { href: "/projects", label: "Projects" },
  { href: "/studies", label: "Studies" },
  { href: "/sessions", label: "Sessions" },
  { href: "/system", label: "System" },
  { href: "/setup", label: "Setup" },
];

/**
 * The header: the name, the pages, and who you are. At phone width the pages go on a second row of their
 * own that scrolls sideways if it must (the header never wraps into a tall stack), and "Go to…" (a
 * keyboard shortcut) is left out.
 */
export function Nav() {
  const pathname = usePathname();
  const { role, version } = useRole();
  return (
    <header className="border-b border-line bg-panel">
      <nav
        className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-1 px-4 py-2 sm:px-6 sm:py-3"
        aria-label="Main"
      >
        <Link href="/projects" className="font-semibold tracking-tight">
          invariant<span className="text-accent">·</span>web
        </Link>
        <ul className="order-last -mx-2 flex w-[calc(100%+1rem)] gap-1 overflow-x-auto sm:order-none sm:mx-0 sm:w-auto">
          {links.map((link) => {
            const active = pathname === link.href || pathname.startsWith(`${link.href}/`);
            return (
              <li key={link.href}>
                <Link
                  href={link.href}
                  aria-current={active ? "page" : undefined}
                  className={`block whitespace-nowrap rounded-md px-2 py-1.5 text-sm sm:px-3 ${active ? "bg-line text-ink" : "text-muted hover:text-ink"}`}
                >
                  {link.label}
                </Link>
              </li>
            );
          })}
        </ul>
        <span className="ml-auto flex items-center gap-3 text-xs text-muted">
          <button
            type="button"
            className="hidden rounded-md border border-line px-2 py-0.5 hover:text-ink sm:inline"
            aria-label="Go to a project, study or page (Ctrl-K)"
            onClick={() => window.dispatchEvent(new KeyboardEvent("keydown", { key: "k", ctrlKey: true }))}
          >
            Go to… <kbd className="font-mono">Ctrl K</kbd>
          </button>
          {role === "viewer" ? (
            <span className="rounded-full border border-warn-strong/50 px-2 py-0.5 text-warn-soft">
              read-only viewer
            </span>
          ) : null}
          {role === "admin" ? <span className="rounded-full border border-line px-2 py-0.5">admin</span> : null}
          {version ? <span>v{version}</span> : null}
        </span>
      </nav>
    </header>
  );
}
