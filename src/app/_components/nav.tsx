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

export function Nav() {
  const pathname = usePathname();
  const { role, version } = useRole();
  return (
    <header className="border-b border-line bg-panel">
      <nav className="mx-auto flex max-w-6xl flex-wrap items-center gap-x-6 gap-y-2 px-6 py-3" aria-label="Main">
        <Link href="/projects" className="font-semibold tracking-tight">
          invariant<span className="text-accent">·</span>web
        </Link>
        <ul className="flex flex-wrap gap-1">
          {links.map((link) => {
            const active = pathname === link.href || pathname.startsWith(`${link.href}/`);
            return (
              <li key={link.href}>
                <Link
                  href={link.href}
                  aria-current={active ? "page" : undefined}
                  className={`rounded-md px-3 py-1.5 text-sm ${active ? "bg-line text-ink" : "text-muted hover:text-ink"}`}
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
            className="rounded-md border border-line px-2 py-0.5 hover:text-ink"
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
