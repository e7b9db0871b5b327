import { randomBytes } from "node:crypto";
import fs from "node:fs";
import fsp from "node:fs/promises";
import path from "node:path";
import { z } from "zod";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { dataDirPaths } from "../storage/data-dir";
import { isOpaqueDir, isWhiteout } from "./overlay-layers";
import { messageOf } from "../../../shared/error-message";

/**
 * Which kind of workspace a process makes: `overlay` (copy-on-write: an overlay over the snapshot's
 * shared tree, O(1) to make, O(changed files) to diff) where the engine allows it, else `copy` (a full
 * private copy). `auto` probes once per process — a Linux host, Docker on overlay2, and a real overlay
 * volume mounted in a container, written to, and read back on the host (its whiteout and opaque mark) —
 * and keeps the answer; `INVARIANT_WORKSPACE_KIND=copy|overlay` skips the probe.
 */
export const workspaceKindSchema = z.enum(["copy", "overlay"]);
export type WorkspaceKind = z.infer<typeof workspaceKindSchema>;
export const workspaceKindSettingSchema = z.enum(["auto", "copy", "overlay"], {
  error: 'INVARIANT_WORKSPACE_KIND must be "auto", "copy" or "overlay"',
});
export type WorkspaceKindSetting = z.infer<typeof workspaceKindSettingSchema>;

export interface WorkspaceKindProbe {
  kind: WorkspaceKind;
  /** Why: "overlay volumes work", or what failed. */
  reason: string;
}

let probed: Promise<WorkspaceKindProbe> | null = null;

const PROBE_SCRIPT = "rm /probe/a && rm -r /probe/d && mkdir /probe/d && echo ok > /probe/d/y";

function message(error: unknown): string {
  return messageOf(error);
}

/** What the probe container left in its upper layer: a whiteout, an opaque directory and a file. */
function checkUpper(upper: string): string | null {
  if (!isWhiteout(fs.lstatSync(path.join(upper, "a")))) return "a deletion left no whiteout in the upper layer";
  if (!isOpaqueDir(path.join(upper, "d"))) return "a directory made again is not marked opaque (user.overlay.opaque)";
  if (fs.readFileSync(path.join(upper, "d", "y"), "utf8") !== "ok\n") return "a written file is not in the upper layer";
  return null;
}

async function runProbe(options: { runtime: ContainerRuntime; dataDir: string; image: string }) {
  const dir = path.join(dataDirPaths(options.dataDir).workspaces, `.probe-${randomBytes(6).toString("hex")}`);
  const [lower, upper, work] = ["lower", "upper", "work"].map((name) => path.join(dir, name)) as [
    string,
    string,
    string,
  ];
  let container: string | null = null;
  try {
    await fsp.mkdir(path.join(lower, "d"), { recursive: true, mode: 0o755 });
    await fsp.mkdir(upper, { mode: 0o755 });
    await fsp.mkdir(work, { mode: 0o700 });
    await fsp.writeFile(path.join(lower, "a"), "a\n");
    await fsp.writeFile(path.join(lower, "d", "x"), "x\n");
    container = await options.runtime.createContainer({
      image: options.image,
      command: ["/bin/sh", "-c", PROBE_SCRIPT],
      labels: { project: "invariant-probe", role: "probe" },
      limits: { cpus: 0.5, memoryBytes: 64 * 1024 * 1024, swapBytes: 0, pids: 32 },
      network: "none",
      mounts: [
        {
          hostPath: lower,
          containerPath: "/probe",
          readOnly: false,
          overlay: { upperDir: upper, workDir: work, userXattr: true },
        },
      ],
    });
    let output = "";
    const { exitCode } = await options.runtime.runToExit(container, (text) => (output += text), { timeoutMs: 60_000 });
    if (exitCode !== 0)
      return `the probe container could not write its overlay (exit ${exitCode}: ${output.trim().slice(0, 200)})`;
    return checkUpper(upper);
  } finally {
    if (container) await options.runtime.removeContainer(container).catch(() => undefined);
    await fsp.rm(dir, { recursive: true, force: true });
  }
}

async function probe(options: {
  runtime: ContainerRuntime;
  dataDir: string;
  image: string;
}): Promise<WorkspaceKindProbe> {
  if (process.platform !== "linux") return { kind: "copy", reason: `this host runs ${process.platform}, not Linux` };
  try {
    const driver = await options.runtime.storageDriver();
    if (driver !== "overlay2") return { kind: "copy", reason: `Docker's storage driver is ${driver}, not overlay2` };
    const problem = await runProbe(options);
    return problem ? { kind: "copy", reason: problem } : { kind: "overlay", reason: "overlay volumes work" };
  } catch (error) {
    return { kind: "copy", reason: `the overlay probe failed: ${message(error)}` };
  }
}

/** The kind of workspace to make: the setting, or (auto) the probe's answer, found once per process. */
export async function chooseWorkspaceKind(options: {
  setting?: WorkspaceKindSetting;
  runtime: ContainerRuntime;
  dataDir: string;
  /** An image to run the probe container of (the one the workspace is for). */
  image: string;
  log?: (message: string) => void;
}): Promise<WorkspaceKind> {
  const setting = options.setting ?? "auto";
  if (setting !== "auto") return setting;
  if (!probed) {
    probed = probe(options);
    void probed.then((result) =>
      options.log?.(
        `workspaces: ${result.kind === "overlay" ? "copy-on-write (overlay)" : "full copies"}: ${result.reason}`,
      ),
    );
  }
  return (await probed).kind;
}

/** The probe's answer in this process, or null before the first workspace asked for it. */
export function probedWorkspaceKind(): Promise<WorkspaceKindProbe> | null {
  return probed;
}

/** Forgets the probe's answer (tests that force it to fail). */
export function resetWorkspaceKindProbe(): void {
  probed = null;
}
