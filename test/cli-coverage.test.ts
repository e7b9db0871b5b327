import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { cliCommands, MUTATION_COVERAGE, OTHER_CLI_COMMANDS } from "../src/cli/cli-coverage";
import { USAGE } from "../src/cli/usage";
import { appRouter } from "../src/server/web/trpc/app-router";
import { REPO_ROOT } from "./support/temp";

/**
 * CLI parity (issue 25): every tRPC mutation a user can make from the dashboard has a CLI command or
 * an explicit reason it has none (src/cli/cli-coverage.ts), and every command that table names exists.
 */
function mutationPaths(): string[] {
  // tRPC 11 keeps every procedure by its dotted path (nested routers flattened) in _def.procedures
  const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;
  return Object.entries(procedures)
    .filter(([, procedure]) => procedure._def.type === "mutation")
    .map(([name]) => name)
    .sort();
}

const cliSources = fs
  .readdirSync(path.join(REPO_ROOT, "src", "cli"))
  .filter((name) => name.endsWith(".ts") && !name.endsWith(".test.ts"))
  .map((name) => fs.readFileSync(path.join(REPO_ROOT, "src", "cli", name), "utf8"))
  .join("\n");

describe("CLI coverage of the dashboard's mutations", () => {
  it("finds the router's mutations (and only mutations)", () => {
    const paths = mutationPaths();
    expect(paths).toContain("dependencies.install");
    expect(paths).toContain("studies.create");
    expect(paths).not.toContain("dependencies.status"); // a query
  });

  it("gives every mutation a CLI command or a reason", () => {
    const uncovered = mutationPaths().filter((name) => !(name in MUTATION_COVERAGE));
    expect(
      uncovered,
      `these tRPC mutations have no CLI command and no reason in src/cli/cli-coverage.ts: ${uncovered.join(", ")}`,
    ).toEqual([]);
    const stale = Object.keys(MUTATION_COVERAGE).filter((name) => !mutationPaths().includes(name));
    expect(stale, `src/cli/cli-coverage.ts names mutations the router does not have: ${stale.join(", ")}`).toEqual([]);
    for (const [name, coverage] of Object.entries(MUTATION_COVERAGE))
      if ("reason" in coverage) expect(coverage.reason.length, `${name}'s reason`).toBeGreaterThan(20);
  });

  it("names only commands the CLI has", () => {
    const known = new Set<string>(cliCommands());
    for (const [name, coverage] of Object.entries(MUTATION_COVERAGE))
      if ("cli" in coverage) expect(known.has(coverage.cli), `${name} → ${coverage.cli}`).toBe(true);
    for (const command of cliCommands()) {
      const [group = "", action] = command.split(" ");
      // the help text documents it: a usage line of its group that names the action
      const lines = USAGE.split("\n").filter((line) => line.trimStart().startsWith(`invariant-web ${group}`));
      expect(lines.length, `invariant-web --help has no line for ${group}`).toBeGreaterThan(0);
      if (action)
        expect(
          lines.some((line) => new RegExp(`\\b${action}\\b`).test(line)),
          `--help: ${command}`,
        ).toBe(true);
      // and the code runs it: a workflow command by its --json name, the others by main.ts' dispatch
      const runs = (OTHER_CLI_COMMANDS as readonly string[]).includes(command)
        ? cliSources.includes(`case "${command}":`)
        : new RegExp(`runWorkflow\\((?:options|\\{[^}]*\\}), "${command}"`).test(cliSources);
      expect(runs, `no code in src/cli runs "${command}"`).toBe(true);
    }
  });
});
