import os from "node:os";
import { runDoctor } from "../../src/server/core/diagnostics/doctor";
import { selfcheckJob } from "../../src/server/core/jobs/job-catalog";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import type { JobHandler } from "../job-handler";

/** Runs the doctor's checks on the worker's own host: its Docker engine, disk and Codex binary. */
export function createSelfcheckHandler(deps: {
  runtime: ContainerRuntime;
  dataDir: string;
  redisUrl: string;
  /** INVARIANT_HOST_CA as this worker was started with. */
  hostCa?: string;
}): JobHandler<typeof selfcheckJob.schema, typeof selfcheckJob.result> {
  return {
    ...selfcheckJob,
    async handler(_data, context) {
      const report = await runDoctor({
        runtime: deps.runtime,
        dataDir: deps.dataDir,
        redisUrl: deps.redisUrl,
        ...(deps.hostCa ? { hostCa: deps.hostCa } : {}),
      });
      return {
        workerId: context.workerId,
        host: os.hostname(),
        pid: process.pid,
        ok: report.ok,
        checks: report.checks,
      };
    },
  };
}
