import { describe, expect, it } from "vitest";
import { createTerminalSizing, type SizeNotice, type SizeWatcher } from "./terminal-sizing";

const desktop: SizeWatcher = { id: "desktop", admin: true, browser: "laptop" };
const otherTab: SizeWatcher = { id: "other-tab", admin: true, browser: "laptop" };
const phone: SizeWatcher = { id: "phone", admin: true, browser: "phone" };
const viewer: SizeWatcher = { id: "viewer", admin: false, browser: "viewer-browser" };
const WIDE = { columns: 160, rows: 40 };

/** Who decides, per window, as the notices say it. */
const sizedBy = (notices: SizeNotice[]) =>
  Object.fromEntries(notices.map((notice) => [notice.watcherId, notice.view.sizedBy]));

describe("terminal sizing", () => {
  it("gives control to the first admin window; a later window, admin or viewer, is told who sizes it", () => {
    const sizing = createTerminalSizing();
    expect(sizedBy(sizing.join("s1", desktop, WIDE))).toEqual({ desktop: "this-window" });
    expect(sizing.join("s1", phone, WIDE)).toEqual([
      { watcherId: "phone", view: { ...WIDE, sizedBy: "another-admin-window" } },
    ]);
    expect(sizedBy(sizing.join("s1", otherTab, WIDE))).toEqual({ "other-tab": "your-other-window" });
    expect(sizedBy(sizing.join("s1", viewer, WIDE))).toEqual({ viewer: "another-admin-window" });
  });

  it("refuses a size from a window not in control unless it claims control, and never from a viewer", () => {
    const sizing = createTerminalSizing();
    sizing.join("s1", desktop, WIDE);
    sizing.join("s1", phone, WIDE);
    sizing.join("s1", viewer, WIDE);
    expect(sizing.request("s1", "desktop", false)).toEqual({ allowed: true, notices: [] });
    expect(sizing.request("s1", "phone", false)).toEqual({ allowed: false, notices: [] });
    expect(sizing.request("s1", "viewer", true)).toEqual({ allowed: false, notices: [] });
    expect(sizing.request("s1", "stranger", true)).toEqual({ allowed: false, notices: [] });
    expect(sizing.request("nowhere", "desktop", true)).toEqual({ allowed: false, notices: [] });

    const claimed = sizing.request("s1", "phone", true);
    expect(claimed.allowed).toBe(true);
    expect(sizedBy(claimed.notices)).toEqual({
      desktop: "another-admin-window",
      phone: "this-window",
      viewer: "another-admin-window",
    });
    expect(sizing.request("s1", "desktop", false).allowed).toBe(false);
  });

  it("tells every window the size the TTY took", () => {
    const sizing = createTerminalSizing();
    sizing.join("s1", desktop, WIDE);
    sizing.join("s1", viewer, WIDE);
    const notices = sizing.resized("s1", { columns: 45, rows: 30 });
    expect(notices.map((notice) => [notice.watcherId, notice.view.columns, notice.view.rows])).toEqual([
      ["desktop", 45, 30],
      ["viewer", 45, 30],
    ]);
    expect(sizing.viewOf("s1", "viewer")).toEqual({ columns: 45, rows: 30, sizedBy: "another-admin-window" });
    expect(sizing.viewOf("s1", "stranger")).toBeNull();
  });

  it("hands control back to the window active before when the one in control goes", () => {
    const sizing = createTerminalSizing();
    sizing.join("s1", desktop, WIDE);
    sizing.join("s1", otherTab, WIDE);
    sizing.join("s1", phone, WIDE);
    sizing.request("s1", "other-tab", true);
    sizing.request("s1", "phone", true);
    expect(sizing.viewOf("s1", "desktop")?.sizedBy).toBe("another-admin-window");
    expect(sizedBy(sizing.leave("s1", "phone"))).toEqual({
      desktop: "your-other-window",
      "other-tab": "this-window",
    });
    // a window that leaves while another is in control changes nobody's view
    expect(sizing.leave("s1", "desktop")).toEqual([]);
    expect(sizing.leave("s1", "desktop")).toEqual([]);
  });

  it("with only viewers left, nobody sizes it; the next admin window to open takes control", () => {
    const sizing = createTerminalSizing();
    sizing.join("s1", desktop, WIDE);
    sizing.join("s1", viewer, WIDE);
    expect(sizedBy(sizing.leave("s1", "desktop"))).toEqual({ viewer: "no-window" });
    expect(sizedBy(sizing.join("s1", phone, { columns: 45, rows: 30 }))).toEqual({
      viewer: "another-admin-window",
      phone: "this-window",
    });
  });

  it("forgets a session once its last window leaves; a window opening it again starts afresh", () => {
    const sizing = createTerminalSizing();
    sizing.join("s1", phone, WIDE);
    sizing.request("s1", "phone", true);
    expect(sizing.leave("s1", "phone")).toEqual([]);
    expect(sizing.viewOf("s1", "phone")).toBeNull();
    expect(sizedBy(sizing.join("s1", desktop, WIDE))).toEqual({ desktop: "this-window" });
  });

  it("a window that opens the terminal twice counts once", () => {
    const sizing = createTerminalSizing();
    sizing.join("s1", desktop, WIDE);
    expect(sizedBy(sizing.join("s1", desktop, WIDE))).toEqual({ desktop: "this-window" });
    sizing.join("s1", phone, WIDE);
    expect(sizedBy(sizing.leave("s1", "desktop"))).toEqual({ phone: "this-window" });
  });
});
