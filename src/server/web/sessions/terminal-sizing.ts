/**
 * Who sizes a session's terminal. A TTY has one size, and every window that watches it shows that size:
 * the admin window that was active last decides it (as tmux's `window-size latest`), every other window
 * (viewers, and admin windows not in control) shows the shared size scaled or scrolled, and never sends one.
 *
 * "Active" means: the first admin window to open the terminal while no other admin window watches it, or the
 * window that takes control (its admin types in it, or presses "Fit to this window"). Merely opening a page
 * while another admin window is in control changes nothing. When the window in control goes, the admin window
 * that was in control before it (else the one that opened first) takes over and sizes the terminal to itself.
 */
import type { TerminalSizedBy } from "../../../shared/session-schemas";

export interface TerminalSize {
  columns: number;
  rows: number;
}

/** A window watching a terminal: one browser tab's socket. */
export interface SizeWatcher {
  id: string;
  admin: boolean;
  /** The browser (its sign-in session) the window belongs to; null for a bearer token. */
  browser: string | null;
}

/** Who decides the size, as one window sees it. */
export type SizedBy = TerminalSizedBy;

export interface TerminalSizeView extends TerminalSize {
  sizedBy: SizedBy;
}

/** What to tell one window: the terminal's size and who decides it. */
export interface SizeNotice {
  watcherId: string;
  view: TerminalSizeView;
}

interface SessionSizing {
  size: TerminalSize;
  watchers: Map<string, SizeWatcher>;
  /** Admin windows, the one that was active last first: the first one is in control. */
  recent: string[];
}

function sizedByFor(sizing: SessionSizing, watcher: SizeWatcher): SizedBy {
  const controller = sizing.recent[0];
  if (controller === undefined) return "no-window";
  if (controller === watcher.id) return "this-window";
  const browser = sizing.watchers.get(controller)?.browser ?? null;
  return watcher.admin && browser !== null && browser === watcher.browser
    ? "your-other-window"
    : "another-admin-window";
}

function noticesFor(sizing: SessionSizing, watchers: Iterable<SizeWatcher>): SizeNotice[] {
  return [...watchers].map((watcher) => ({
    watcherId: watcher.id,
    view: { ...sizing.size, sizedBy: sizedByFor(sizing, watcher) },
  }));
}

/**
 * The sizing of every watched terminal. Each call answers the notices to send (a window's size and who
 * decides it); a session's state goes once its last window leaves.
 */
export function createTerminalSizing() {
  const sessions = new Map<string, SessionSizing>();
  const everyone = (sizing: SessionSizing) => noticesFor(sizing, sizing.watchers.values());

  return {
    /** A window opened the terminal, which has `size` now. The first admin window takes control. */
    join(sessionId: string, watcher: SizeWatcher, size: TerminalSize): SizeNotice[] {
      let sizing = sessions.get(sessionId);
      if (!sizing) {
        sizing = { size, watchers: new Map(), recent: [] };
        sessions.set(sessionId, sizing);
      }
      sizing.size = { columns: size.columns, rows: size.rows };
      sizing.watchers.set(watcher.id, watcher);
      if (!watcher.admin || sizing.recent.includes(watcher.id)) return noticesFor(sizing, [watcher]);
      sizing.recent.push(watcher.id);
      return sizing.recent.length === 1 ? everyone(sizing) : noticesFor(sizing, [watcher]);
    },

    /** A window closed the terminal; when it was in control, the admin window active before it takes over. */
    leave(sessionId: string, watcherId: string): SizeNotice[] {
      const sizing = sessions.get(sessionId);
      if (!sizing?.watchers.delete(watcherId)) return [];
      const wasInControl = sizing.recent[0] === watcherId;
      sizing.recent = sizing.recent.filter((id) => id !== watcherId);
      if (sizing.watchers.size === 0) {
        sessions.delete(sessionId);
        return [];
      }
      return wasInControl ? everyone(sizing) : [];
    },

    /**
     * May this window set the size? Only the admin window in control may; with `claim` an admin window takes
     * control first. Viewers never may, whatever they send.
     */
    request(sessionId: string, watcherId: string, claim: boolean): { allowed: boolean; notices: SizeNotice[] } {
      const sizing = sessions.get(sessionId);
      const watcher = sizing?.watchers.get(watcherId);
      if (!sizing || !watcher?.admin) return { allowed: false, notices: [] };
      if (sizing.recent[0] === watcherId) return { allowed: true, notices: [] };
      if (!claim) return { allowed: false, notices: [] };
      sizing.recent = [watcherId, ...sizing.recent.filter((id) => id !== watcherId)];
      return { allowed: true, notices: everyone(sizing) };
    },

    /** The TTY took a new size: every window hears it. */
    resized(sessionId: string, size: TerminalSize): SizeNotice[] {
      const sizing = sessions.get(sessionId);
      if (!sizing) return [];
      sizing.size = { columns: size.columns, rows: size.rows };
      return everyone(sizing);
    },

    /** The size and who decides it, as one window sees it (null when it does not watch the terminal). */
    viewOf(sessionId: string, watcherId: string): TerminalSizeView | null {
      const sizing = sessions.get(sessionId);
      const watcher = sizing?.watchers.get(watcherId);
      return sizing && watcher ? { ...sizing.size, sizedBy: sizedByFor(sizing, watcher) } : null;
    },
  };
}

export type TerminalSizing = ReturnType<typeof createTerminalSizing>;
