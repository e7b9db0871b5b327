import path from "node:path";
import { parseCli } from "./config";
import { UsageError } from "./usage-error";
import { USAGE } from "./usage";
import { packageRoot, packageVersion } from "../lib/package-info";
import { messageOf } from "../shared/error-message";

/** Entry of the `invariant-web` command (bundled to dist/cli.mjs). Subcommands load lazily. */
export async function main(argv: readonly string[]): Promise<void> {
  const root = packageRoot();
  const version = packageVersion(root);
  let config;
  try {
    config = parseCli(argv, process.env);
  } catch (error) {
    if (error instanceof UsageError) {
      process.stderr.write(`invariant-web: ${error.message}\n`);
      process.exit(2);
    }
    throw error;
  }
  if (config.help) {
    process.stdout.write(USAGE);
    return;
  }
  if (config.version) {
    process.stdout.write(`${version}\n`);
    return;
  }
  switch (config.command) {
    case "start": {
      const { launch } = await import("./launcher");
      await launch({
        config,
        root,
        version,
        cliPath: path.resolve(process.argv[1] ?? path.join(root, "bin", "invariant-web.mjs")),
      });
      return;
    }
    case "worker": {
      const { runWorkerCommand } = await import("./worker-command");
      await runWorkerCommand({ config, version });
      return;
    }
    case "doctor": {
      const { runDoctorCommand } = await import("./doctor-command");
      process.exit(await runDoctorCommand(config));
      return;
    }
    case "environment":
    case "dependencies":
    case "project":
    case "study":
    case "branch":
    case "trial": {
      const { runWorkflowCommand } = await import("./workflow-commands");
      process.exit(await runWorkflowCommand({ config }));
      return;
    }
    case "apply": {
      const { runApplyCommand } = await import("./apply-command");
      process.exit(await runApplyCommand({ config, root }));
      return;
    }
    case "export": {
      const { runExportCommand } = await import("./export-command");
      process.exit(await runExportCommand({ config, root }));
      return;
    }
    case "mcp":
      process.exit(await (await import("./mcp-command")).runMcpCommand({ config, version }));
      return;
    case "mock-model": {
      const { runMockModelCommand } = await import("./mock-model-command");
      await runMockModelCommand({ config, root });
      return;
    }
    case "login":
    case "logout":
    case "demo":
      process.exit(await (await import("./first-run-commands")).runFirstRunCommand({ config, root }));
      return;
    default:
      process.stderr.write(`invariant-web: unknown command "${config.command}".\n\n${USAGE}`);
      process.exit(2);
  }
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`invariant-web: ${messageOf(error)}\n`);
  process.exit(1);
});
