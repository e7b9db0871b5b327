import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import { z } from "zod";
import { AppError } from "../errors/app-error";
import { dataDirPaths } from "../storage/data-dir";
import { bytesOf, fromPathText, toPathText, unsafePathReason, type BytePath } from "../../../lib/files/byte-path";
import type { ExclusionCategory } from "../../../lib/files/exclusion-rules";
import type { SpecialKind } from "../../../lib/files/tree-walker";

/** git's modes: regular file, executable file, symbolic link. */
export type GitMode = "100644" | "100755" | "120000";

export interface ManifestEntry {
  path: BytePath;
  type: "file" | "symlink";
  mode: GitMode;
  /** Bytes of the file, or of the link target. */
  size: number;
  /** sha256 of the content (of the target bytes for a link). */
  sha256: string;
  /** git blob id of the same content. */
  oid: string;
  /** Where the content starts in the snapshot's pack (see git-pack.ts). */
  offset: number;
  /** Link target, exactly as stored in the link. */
  target?: BytePath;
}

export interface ManifestSkipped {
  path: BytePath;
  kind: SpecialKind;
}

export interface Manifest {
  format: typeof MANIFEST_FORMAT;
  /** Content address: see snapshotIdOf. */
  id: string;
  projectId: string;
  /** The git commit a materialised workspace has checked out. */
  commit: string;
  /** Base name of the pack holding every object (git/objects/pack/<pack>.pack). */
  pack: string;
  fileCount: number;
  bytes: number;
  /** Sorted by path (byte order). */
  entries: ManifestEntry[];
  skipped: ManifestSkipped[];
  /** How many files/directories each always-excluded category left out, and the secrets by path. */
  excluded: { counts: Partial<Record<ExclusionCategory, number>>; secrets: BytePath[]; ignoredByGitignore: number };
}

export const MANIFEST_FORMAT = "invariant-snapshot/1";

const pathTextSchema = { path: z.string(), pathBytes: z.string().optional() };
const entrySchema = z.object({
  ...pathTextSchema,
  type: z.enum(["file", "symlink"]),
  mode: z.enum(["100644", "100755", "120000"]),
  size: z.number().int().min(0),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  oid: z.string().regex(/^[0-9a-f]{40}$/),
  offset: z.number().int().min(0),
  target: z.string().optional(),
  targetBytes: z.string().optional(),
});
const manifestSchema = z.object({
  format: z.literal(MANIFEST_FORMAT),
  id: z.string().regex(/^[0-9a-f]{64}$/),
  projectId: z.string(),
  commit: z.string().regex(/^[0-9a-f]{40}$/),
  pack: z.string().regex(/^pack-[0-9a-f]{40}$/),
  fileCount: z.number().int(),
  bytes: z.number().int(),
  // entries are checked one by one below: zod over 100,000 objects costs more than the rest of a read
  entries: z.array(z.unknown()),
  skipped: z.array(
    z.object({ ...pathTextSchema, kind: z.enum(["fifo", "socket", "block-device", "character-device", "unknown"]) }),
  ),
  excluded: z.object({
    counts: z.record(z.string(), z.number()),
    secrets: z.array(z.object(pathTextSchema)),
    ignoredByGitignore: z.number(),
  }),
});

type EntryJson = z.infer<typeof entrySchema>;

function entryToJson(entry: ManifestEntry): EntryJson {
  const { path: rel, target } = entry;
  const text = toPathText(rel);
  const json: EntryJson = {
    path: text.path,
    type: entry.type,
    mode: entry.mode,
    size: entry.size,
    sha256: entry.sha256,
    oid: entry.oid,
    offset: entry.offset,
  };
  if (text.pathBytes !== undefined) json.pathBytes = text.pathBytes;
  if (target !== undefined) {
    const targetText = toPathText(target);
    json.target = targetText.path;
    if (targetText.pathBytes !== undefined) json.targetBytes = targetText.pathBytes;
  }
  return json;
}

const HEX64 = /^[0-9a-f]{64}$/;
const HEX40 = /^[0-9a-f]{40}$/;
const MODES = new Set(["100644", "100755", "120000"]);
const isCount = (value: unknown) => typeof value === "number" && Number.isSafeInteger(value) && value >= 0;
const isOptionalString = (value: unknown) => value === undefined || typeof value === "string";

/** The same checks as entrySchema, by hand (fast path); the schema reports what is wrong when they fail. */
function checkEntry(value: unknown): EntryJson {
  const json = value as Partial<Record<keyof EntryJson, unknown>> | null;
  const ok =
    typeof json === "object" &&
    json !== null &&
    typeof json.path === "string" &&
    isOptionalString(json.pathBytes) &&
    (json.type === "file" || json.type === "symlink") &&
    typeof json.mode === "string" &&
    MODES.has(json.mode) &&
    isCount(json.size) &&
    typeof json.sha256 === "string" &&
    HEX64.test(json.sha256) &&
    typeof json.oid === "string" &&
    HEX40.test(json.oid) &&
    isCount(json.offset) &&
    isOptionalString(json.target) &&
    isOptionalString(json.targetBytes);
  return ok ? (json as EntryJson) : entrySchema.parse(value);
}

function entryFromJson(json: EntryJson): ManifestEntry {
  const rel = fromPathText(json);
  // a manifest is ours, in a private directory; still, a path that could leave a workspace is never trusted
  const unsafe = unsafePathReason(rel);
  if (unsafe) throw new Error(`The snapshot manifest is damaged: entry ${JSON.stringify(json.path)}: ${unsafe}.`);
  const entry: ManifestEntry = {
    path: rel,
    type: json.type,
    mode: json.mode,
    size: json.size,
    sha256: json.sha256,
    oid: json.oid,
    offset: json.offset,
  };
  if (json.target !== undefined)
    entry.target = fromPathText({ path: json.target, ...(json.targetBytes ? { pathBytes: json.targetBytes } : {}) });
  return entry;
}

/**
 * The snapshot id: sha256 of the project id and every entry's path, type, mode, size, sha256 and
 * link target (not where the pack happens to hold it).
 * Same project, same content → same id (the snapshot is reused). The project is part of the address
 * because a snapshot row belongs to one project.
 */
export function snapshotIdOf(options: { projectId: string; entries: readonly ManifestEntry[] }): string {
  const hash = createHash("sha256");
  hash.update(`${MANIFEST_FORMAT}\0${options.projectId}\0`);
  // one line per entry: path bytes (hex, so any byte is fine), type, mode, size, sha256, target bytes (hex)
  for (const entry of options.entries) {
    hash.update(
      `${bytesOf(entry.path).toString("hex")} ${entry.type} ${entry.mode} ${entry.size} ${entry.sha256} ${entry.target === undefined ? "-" : bytesOf(entry.target).toString("hex")}\n`,
    );
  }
  return hash.digest("hex");
}

export function serializeManifest(manifest: Manifest): string {
  return JSON.stringify({
    ...manifest,
    entries: manifest.entries.map(entryToJson),
    skipped: manifest.skipped.map((item) => ({ ...toPathText(item.path), kind: item.kind })),
    excluded: { ...manifest.excluded, secrets: manifest.excluded.secrets.map(toPathText) },
  });
}

export function parseManifest(text: string): Manifest {
  const json = manifestSchema.parse(JSON.parse(text));
  return {
    ...json,
    entries: json.entries.map((entry) => entryFromJson(checkEntry(entry))),
    skipped: json.skipped.map((item) => ({ path: fromPathText(item), kind: item.kind })),
    excluded: { ...json.excluded, secrets: json.excluded.secrets.map(fromPathText) },
  };
}

export async function readManifest(options: { dataDir: string; snapshotId: string }): Promise<Manifest> {
  let text: string;
  try {
    text = await fs.readFile(dataDirPaths(options.dataDir).snapshot(options.snapshotId).manifest, "utf8");
  } catch {
    throw new AppError({
      code: "NOT_FOUND",
      message: `Snapshot ${options.snapshotId} is not in the data directory. It may have been deleted; take a new snapshot.`,
    });
  }
  return parseManifest(text);
}
