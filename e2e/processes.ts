import { existsSync, readdirSync, readFileSync } from "node:fs";

/** Direct child pids of a process (Linux /proc; every thread's children). */
export function childPids(pid: number): number[] {
  const taskDir = `/proc/${pid}/task`;
  if (!existsSync(taskDir)) return [];
  const pids = new Set<number>();
  for (const task of readdirSync(taskDir)) {
    let text = "";
    try {
      text = readFileSync(`${taskDir}/${task}/children`, "utf8");
    } catch {
      continue; // the thread ended while we looked
    }
    for (const part of text.split(/\s+/)) if (part) pids.add(Number(part));
  }
  return [...pids];
}

/** The command line of a process, arguments joined by spaces; empty when it is gone. */
export function commandLine(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean).join(" ");
  } catch {
    return "";
  }
}

/** Whether a process exists and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const state = stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
    return state !== "Z" && state !== "X";
  } catch {
    return false;
  }
}
