import { spawn } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { AppError } from "../../core/errors/app-error";
import type { BaseImageBuildView } from "../../../shared/setup-schemas";

const OUTPUT_LIMIT = 64 * 1024;

/**
 * The Setup page's "Build the base image" button: runs the package's `scripts/base-image.mjs` (debootstrap
 * a minimal Debian, `docker import` it; about a minute) for the configured base image, one build at a
 * time, and keeps the tail of its output for the page to show as it goes. An image that exists already
 * is left as it is (the script says so and exits 0).
 */
export function createBaseImageBuilder(options: { root: string; baseImage: string; log?: (line: string) => void }) {
  let build: BaseImageBuildView | null = null;
  const script = path.join(options.root, "scripts", "base-image.mjs");
  return {
    status: (): BaseImageBuildView | null => build,

    start(): BaseImageBuildView {
      if (build?.running) return build;
      if (!fs.existsSync(script))
        throw new AppError({
          code: "PRECONDITION_FAILED",
          message: `This installation has no ${script}; build the image from a clone of invariant-web (node scripts/base-image.mjs), or set INVARIANT_BASE_IMAGE to an image you have.`,
        });
      const current: BaseImageBuildView = {
        running: true,
        startedAt: new Date().toISOString(),
        finishedAt: null,
        exitCode: null,
        output: "",
      };
      build = current;
      const child = spawn(process.execPath, [script, "--tag", options.baseImage], {
        stdio: ["ignore", "pipe", "pipe"],
      });
      const append = (chunk: Buffer) => {
        current.output = (current.output + chunk.toString("utf8")).slice(-OUTPUT_LIMIT);
      };
      child.stdout.on("data", append);
      child.stderr.on("data", append);
      const finish = (exitCode: number) => {
        if (!current.running) return;
        current.running = false;
        current.exitCode = exitCode;
        current.finishedAt = new Date().toISOString();
        options.log?.(`setup: the base image build exited with code ${exitCode}`);
      };
      child.once("error", (error) => {
        current.output += `\n${error.message}\n`;
        finish(127);
      });
      child.once("close", (code) => finish(code ?? 1));
      options.log?.(`setup: building the base image ${options.baseImage}`);
      return current;
    },
  };
}
export type BaseImageBuilder = ReturnType<typeof createBaseImageBuilder>;
