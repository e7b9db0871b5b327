import { z } from "zod";

/**
 * Files a study captures when it is created and restores byte for byte before every evaluation, so an
 * agent cannot weaken the checks: the tests themselves (`test`) and the runner's configuration that
 * decides what runs and how it is reported (`config`: package.json, vitest.config.*, pytest.ini,
 * conftest.py, …). Each trial records which of them its agent changed: the tamper indicator.
 */
export const CAPTURED_FILE_ROLES = ["test", "config"] as const;
export const capturedFileRoleSchema = z.enum(CAPTURED_FILE_ROLES);
export type CapturedFileRole = z.infer<typeof capturedFileRoleSchema>;
/** How a captured path is held: a regular file, or a symbolic link (restored as a link, its target text as captured). */
export const capturedFileKindSchema = z.enum(["file", "symlink"]);
export type CapturedFileKind = z.infer<typeof capturedFileKindSchema>;

/** How the agent left a captured file (or the JUnit path, role `report`) compared with what was captured. */
export const CAPTURED_CHANGE_KINDS = ["modified", "deleted", "replaced", "report-left"] as const;
export const capturedChangeSchema = z.object({
  path: z.string(),
  role: z.enum([...CAPTURED_FILE_ROLES, "report"]),
  /**
   * modified: other bytes or execute bit; deleted: gone; replaced: now a symlink, directory or special file;
   * report-left: a JUnit report at the study's JUnit path that the snapshot did not have (deleted before the
   * evaluation, so the verdict is the test command's own).
   */
  change: z.enum(CAPTURED_CHANGE_KINDS),
});
export type CapturedChange = z.infer<typeof capturedChangeSchema>;
export const MAX_CAPTURED_CHANGES = 500;

const CONFIG_NAMES = [
  /^package\.json$/,
  /^(vitest|vite|jest|playwright|babel|webpack|rollup|karma|ava)\.config\.[cm]?[jt]sx?$/,
  /^vitest\.workspace\.[cm]?[jt]s$/,
  /^jest\.config\.json$/,
  /^\.mocharc(\.[a-z]+)?$/,
  /^\.babelrc(\.[a-z]+)?$/,
  /^tsconfig(\.[\w-]+)?\.json$/,
  /^pytest\.ini$/,
  /^conftest\.py$/,
  /^pyproject\.toml$/,
  /^setup\.cfg$/,
  /^tox\.ini$/,
  /^\.coveragerc$/,
  /^Makefile$/,
  /^go\.mod$/,
  /^Cargo\.toml$/,
];

/** The role a file most likely plays: `config` for well-known runner configuration, else `test`. */
export function suggestedRole(path: string): CapturedFileRole {
  const name = path.slice(path.lastIndexOf("/") + 1);
  return CONFIG_NAMES.some((pattern) => pattern.test(name)) ? "config" : "test";
}

const CHANGE_WORDS: Record<CapturedChange["change"], string> = {
  modified: "modified",
  deleted: "deleted",
  replaced: "replaced",
  "report-left": "report left behind",
};

/** One line for tables and reports: "package.json (config, modified); junit.xml (report left behind)". */
export function capturedChangesText(changes: readonly CapturedChange[]): string {
  return changes
    .map((item) =>
      item.role === "report"
        ? `${item.path} (${CHANGE_WORDS[item.change]})`
        : `${item.path} (${item.role}, ${CHANGE_WORDS[item.change]})`,
    )
    .join("; ");
}
