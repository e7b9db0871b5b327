import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { isAppError } from "../../core/errors/app-error";
import { browseFolders } from "./folder-browser";

function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (error) {
    if (isAppError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("the add-project folder picker", () => {
  it("lists a home folder's visible subfolders (and symlinks to folders inside home), nothing else", () => {
    const home = tempDir("home");
    for (const dir of ["code/app", "code/lib", "Documents", ".config"])
      fs.mkdirSync(path.join(home, dir), { recursive: true });
    fs.writeFileSync(path.join(home, "notes.txt"), "x");
    fs.symlinkSync(path.join(home, "code"), path.join(home, "work"));
    fs.symlinkSync("/etc", path.join(home, "outside"));
    expect(browseFolders({ home, path: null })).toEqual({
      path: home,
      parent: null,
      roots: [{ name: "Home", path: home }],
      folders: ["code", "Documents", "work"].map((name) => ({ name, path: path.join(home, name) })),
      truncated: false,
    });
    expect(browseFolders({ home, path: "code" })).toMatchObject({
      path: path.join(home, "code"),
      parent: home,
      folders: [{ name: "app" }, { name: "lib" }],
    });
    expect(browseFolders({ home, path: path.join(home, "work") }).path).toBe(path.join(home, "code"));
  });

  it("refuses folders outside the home directory, also through a symlink, and missing ones", () => {
    const home = tempDir("home");
    fs.symlinkSync("/etc", path.join(home, "outside"));
    for (const wanted of ["/etc", "..", path.join(home, "outside"), `${home}/../`])
      expect(refusal(() => browseFolders({ home, path: wanted }))).toMatchObject({
        code: "FORBIDDEN",
        message: expect.stringMatching(/Only folders inside your home directory/) as string,
      });
    expect(refusal(() => browseFolders({ home, path: "nope" })).code).toBe("NOT_FOUND");
  });

  it("opens where invariant-web was started when the home has no folders (root's /root), and can go up to it", () => {
    const home = tempDir("empty-home");
    const started = tempDir("started-in");
    fs.mkdirSync(path.join(started, "shop", "api"), { recursive: true });
    const opened = browseFolders({ home, startedIn: started, path: null });
    expect(opened).toMatchObject({
      path: started,
      parent: null,
      roots: [
        { name: "Home", path: home },
        { name: "Started in", path: started },
      ],
      folders: [{ name: "shop", path: path.join(started, "shop") }],
    });
    expect(browseFolders({ home, startedIn: started, path: path.join(started, "shop", "api") }).parent).toBe(
      path.join(started, "shop"),
    );
    // the home is still a root, empty; outside both is refused, naming both
    expect(browseFolders({ home, startedIn: started, path: home }).folders).toEqual([]);
    expect(refusal(() => browseFolders({ home, startedIn: started, path: "/etc" })).message).toBe(
      `Only folders inside your home directory (${home}) or the folder invariant-web was started in (${started}) can be browsed here; type another path by hand.`,
    );
  });
});
