import { cliDataSchemas, type CliCommandName } from "./cli-schemas";

/**
 * CLI parity (issue 25): every change a user can make in the dashboard — each tRPC mutation of the app
 * router — has a CLI command, or says here why it has none. test/cli-coverage.test.ts enumerates the
 * router's mutations and fails on one that is missing from this table, and on a command named here that
 * the CLI does not have.
 */

/** The CLI's commands that print no `--json` envelope (the workflow commands are cliDataSchemas' keys). */
export const OTHER_CLI_COMMANDS = ["login", "logout", "demo"] as const;
export type CliCommand = CliCommandName | (typeof OTHER_CLI_COMMANDS)[number];

/** Every command of the CLI that acts on the dashboard (`invariant-web <command> …`). */
export function cliCommands(): CliCommand[] {
  return [...(Object.keys(cliDataSchemas) as CliCommandName[]), ...OTHER_CLI_COMMANDS];
}

export type MutationCoverage = { cli: CliCommand } | { reason: string };

export const MUTATION_COVERAGE: Record<string, MutationCoverage> = {
  "projects.add": { cli: "project add" },
  "projects.update": { cli: "project settings" },
  "projects.relink": { cli: "project relink" },
  "projects.remove": {
    reason: "not in the CLI yet: removing a project (its versions, studies and images) is on its page",
  },
  "environments.prepare": { cli: "environment prepare" },
  "environments.prepareWithCommand": { cli: "environment prepare" },
  "environments.prepareFromDevcontainer": { cli: "environment prepare" },
  "environments.activate": { reason: "not in the CLI yet: switching the active version is on the project page" },
  "environments.remove": { reason: "not in the CLI yet: deleting a version is on the project page" },
  "dependencies.setStep": { cli: "dependencies set" },
  "dependencies.install": { cli: "dependencies install" },
  "system.selfcheck": {
    reason: "invariant-web doctor checks the host itself; the workers' selfcheck job is a button of the System page",
  },
  "system.createViewerLink": {
    reason: "sharing: a viewer link is made on the System page and handed to a person's browser",
  },
  "system.revokeViewerLink": { reason: "sharing: viewer links are listed and revoked on the System page" },
  "system.revokeSession": {
    reason: "browser sign-ins are listed and revoked on the System page (the CLI uses the admin token)",
  },
  "system.createWorkerToken": {
    reason: "a worker token is shown once on the System page, to copy to the other host (docs/scaling.md)",
  },
  "system.revokeWorkerToken": { reason: "worker tokens are listed and revoked on the System page" },
  "snapshots.create": {
    reason:
      "study create takes the snapshot its study runs on; a snapshot alone is a step of the browser's workspace flow",
  },
  "workspaces.create": {
    reason: "a workspace is an interactive sandbox opened from the browser (its terminal is there)",
  },
  "workspaces.remove": {
    reason: "a workspace is an interactive sandbox opened from the browser (its terminal is there)",
  },
  "sessions.start": { reason: "a terminal session is interactive: it lives in the browser" },
  "sessions.resume": { reason: "a terminal session is interactive: it lives in the browser" },
  "sessions.finish": { reason: "a terminal session is interactive: it lives in the browser" },
  "sessions.saveInstalledTools": {
    reason: "saves what a terminal session installed; the session lives in the browser",
  },
  "studies.create": { cli: "study create" },
  "studies.stop": { cli: "study stop" },
  "studies.retry": { cli: "study retry" },
  "studies.addRepeats": { cli: "study repeat" },
  "studies.choose": { cli: "study choose" },
  "studies.continueWithFeedback": { cli: "trial follow-up" },
  "review.addComment": { cli: "trial comment" },
  "review.removeComment": {
    reason: "not in the CLI yet: an unsent comment is removed in the review (trial comments lists them)",
  },
  "studies.remove": { reason: "not in the CLI yet: deleting a study is on its page" },
  "studies.rerun": {
    reason: "not in the CLI yet: rerun from a study's page (study create --file runs the same inputs again)",
  },
  "studies.setPrice": { reason: "model prices for token budgets are edited in the System page's price table" },
  "studies.resetPrice": { reason: "model prices for token budgets are edited in the System page's price table" },
  "applies.run": { cli: "apply" },
  "applies.runTrial": { cli: "apply" },
  "branches.create": { cli: "branch create" },
  "branches.remove": { cli: "branch remove" },
  "applies.undo": { reason: "not in the CLI yet: undoing an apply is on the project's apply history" },
  "setup.storeApiKey": { cli: "login" },
  "setup.removeApiKey": { cli: "logout" },
  "setup.buildBaseImage": {
    reason:
      "the first-run checklist's button; on the command line the package's node scripts/base-image.mjs builds it (docs/environments.md)",
  },
  "demo.start": { cli: "demo" },
};
