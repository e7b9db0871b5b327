import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";

/**
 * Real files for snapshot/workspace/apply tests. Paths are byte strings (latin1: one character per
 * byte) so tests can use names that are not valid UTF-8; `p()` turns one into a Buffer path.
 */
export function p(root: string, rel: string): Buffer {
  return Buffer.concat([Buffer.from(root), Buffer.from("/"), Buffer.from(rel, "latin1")]);
}

/** A byte-string path from readable text ("café" → its UTF-8 bytes). */
export function utf8(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

export function write(root: string, rel: string, content: string | Buffer, mode = 0o644): void {
  const file = p(root, rel);
  const parent = rel.split("/").slice(0, -1).join("/");
  if (parent) fs.mkdirSync(p(root, parent), { recursive: true });
  fs.writeFileSync(file, content);
  fs.chmodSync(file, mode);
}

export function symlink(root: string, rel: string, target: string): void {
  const parent = rel.split("/").slice(0, -1).join("/");
  if (parent) fs.mkdirSync(p(root, parent), { recursive: true });
  fs.symlinkSync(Buffer.from(target, "latin1"), p(root, rel));
}

export function read(root: string, rel: string): Buffer {
  return fs.readFileSync(p(root, rel));
}

export function mkfifo(root: string, rel: string): void {
  execFileSync("mkfifo", [p(root, rel).toString("latin1")], { encoding: "buffer" });
}

/**
 * Every entry below `root`: "type mode path content" lines, sorted, where content is the sha256 of
 * a file or the target of a link. Equal listings mean equal trees (names, types, modes, bytes).
 */
export function listTree(root: string, options: { skip?: (rel: string) => boolean } = {}): string[] {
  const lines: string[] = [];
  const visit = (rel: string) => {
    const dir = rel === "" ? Buffer.from(root) : p(root, rel);
    for (const name of fs.readdirSync(dir, { encoding: "buffer" })) {
      const child = rel === "" ? name.toString("latin1") : `${rel}/${name.toString("latin1")}`;
      if (options.skip?.(child)) continue;
      const full = p(root, child);
      const stat = fs.lstatSync(full);
      const shown = JSON.stringify(child);
      const mode = (stat.mode & 0o7777).toString(8);
      if (stat.isDirectory()) {
        lines.push(`dir ${mode} ${shown}`);
        visit(child);
      } else if (stat.isSymbolicLink())
        lines.push(
          `link - ${shown} ${JSON.stringify(fs.readlinkSync(full, { encoding: "buffer" }).toString("latin1"))}`,
        );
      else if (stat.isFile())
        lines.push(`file ${mode} ${shown} ${createHash("sha256").update(fs.readFileSync(full)).digest("hex")}`);
      else lines.push(`special - ${shown}`);
    }
  };
  visit("");
  return lines.sort();
}

export function git(cwd: string, args: string[]): string {
  return execFileSync("git", args, { cwd, encoding: "latin1", stdio: ["ignore", "pipe", "pipe"] });
}
