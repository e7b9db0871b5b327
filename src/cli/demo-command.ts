import type { CliConfig } from "./config";
export async function runDemoCommand(_options: { config: CliConfig; root: string }): Promise<number> {
  await Promise.resolve();
  process.stderr.write("invariant-web demo: not yet\n");
  return 1;
}
