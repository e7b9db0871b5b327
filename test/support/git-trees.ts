import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import { p } from "./file-trees";

/**
 * A tree as git sees it: one "mode path sha256" line per file or link (mode 100644, 100755 or
 * 120000; a link's content is its target), sorted, without directories and without `.git`. Equal
 * listings mean a patch reproduced the tree byte for byte.
 */
export function gitTree(root: string, options: { skip?: (rel: string) => boolean } = {}): string[] {
  const lines: string[] = [];
  const visit = (rel: string) => {
    for (const name of fs.readdirSync(rel === "" ? Buffer.from(root) : p(root, rel), { encoding: "buffer" })) {
      const child = rel === "" ? name.toString("latin1") : `${rel}/${name.toString("latin1")}`;
      if (child === ".git" || options.skip?.(child)) continue;
      const full = p(root, child);
      const stat = fs.lstatSync(full);
      const hash = (data: Buffer) => createHash("sha256").update(data).digest("hex");
      if (stat.isDirectory()) visit(child);
      else if (stat.isSymbolicLink())
        lines.push(`120000 ${JSON.stringify(child)} ${hash(fs.readlinkSync(full, { encoding: "buffer" }))}`);
      else if (stat.isFile())
        lines.push(
          `${stat.mode & 0o100 ? "100755" : "100644"} ${JSON.stringify(child)} ${hash(fs.readFileSync(full))}`,
        );
    }
  };
  visit("");
  return lines.sort();
}

/** Runs `git apply` with a patch file in `cwd`; returns stderr+stdout, throws with them on failure. */
export function gitApply(cwd: string, patchFile: string, args: string[] = []): string {
  try {
    return execFileSync("git", ["apply", ...args, patchFile], { cwd, encoding: "utf8", stdio: "pipe" });
  } catch (error) {
    const failed = error as { stderr?: string; stdout?: string };
    throw new Error(`git apply ${args.join(" ")} failed:\n${failed.stderr ?? ""}${failed.stdout ?? ""}`);
  }
}
