import {
  prepareEnvironment,
  type EnvironmentBuilderDeps,
} from "../../src/server/core/environments/environment-builder";
import { prepareEnvironmentJob, removeEnvironmentImageJob } from "../../src/server/core/jobs/environment-jobs";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import type { JobHandler } from "../job-handler";

export function createPrepareEnvironmentHandler(
  deps: EnvironmentBuilderDeps,
): JobHandler<typeof prepareEnvironmentJob.schema, typeof prepareEnvironmentJob.result> {
  return { ...prepareEnvironmentJob, handler: (data) => prepareEnvironment(deps, data) };
}

export function createRemoveImageHandler(deps: {
  runtime: ContainerRuntime;
}): JobHandler<typeof removeEnvironmentImageJob.schema, typeof removeEnvironmentImageJob.result> {
  return {
    ...removeEnvironmentImageJob,
    async handler(data) {
      const existed = (await deps.runtime.inspectImage(data.reference)) !== null;
      await deps.runtime.removeImage(data.reference);
      return { removed: existed };
    },
  };
}
