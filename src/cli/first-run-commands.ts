import type { CliConfig } from "./config";

/** `login`, `logout` and `demo`: the first-run commands (each in its own module, loaded when used). */
export async function runFirstRunCommand(options: { config: CliConfig; root: string }): Promise<number> {
  const { config } = options;
  switch (config.command) {
    case "login":
      return (await import("./login-command")).runLoginCommand(config);
    case "logout":
      return (await import("./logout-command")).runLogoutCommand(config);
    default:
      return (await import("./demo-command")).runDemoCommand(options);
  }
}
