import { describe, expect, it } from "vitest";
import type { EventInput } from "../events/event-stream";
import { LABEL } from "./container-spec";
import type { ContainerRuntime, ContainerSummary } from "./container-runtime";
import { reconcileContainers } from "./reconciler";

/** The decision logic, over a listed set of containers (the real-engine path is in test/reconciler.test.ts). */
function container(id: string, labels: Record<string, string>): ContainerSummary {
  return {
    id,
    labels: {
      [LABEL.managed]: "true",
      [LABEL.project]: "p",
      [LABEL.role]: "prepare",
      [LABEL.instance]: "ours",
      ...labels,
    },
    state: "running",
  };
}

describe("reconciler decisions", () => {
  it("removes only containers whose worker is gone, and reports interrupted builds", async () => {
    const removed: string[] = [];
    const published: EventInput[] = [];
    const containers = [
      container("mine-active", { [LABEL.worker]: "me", [LABEL.workerHost]: "here", [LABEL.workerPid]: "1" }),
      container("mine-stale", {
        [LABEL.worker]: "me",
        [LABEL.workerHost]: "here",
        [LABEL.workerPid]: "1",
        [LABEL.environment]: "v9",
      }),
      container("same-host-alive-other-redis", {
        [LABEL.worker]: "other",
        [LABEL.workerHost]: "here",
        [LABEL.workerPid]: "42",
      }),
      container("same-host-dead", { [LABEL.worker]: "dead", [LABEL.workerHost]: "here", [LABEL.workerPid]: "43" }),
      container("remote-live", { [LABEL.worker]: "remote-1", [LABEL.workerHost]: "there", [LABEL.workerPid]: "7" }),
      container("remote-silent", { [LABEL.worker]: "remote-2", [LABEL.workerHost]: "there", [LABEL.workerPid]: "8" }),
      container("unowned-probe", { [LABEL.role]: "probe" }),
      container("other-installation-dead", {
        [LABEL.worker]: "x",
        [LABEL.workerHost]: "here",
        [LABEL.workerPid]: "44",
        [LABEL.instance]: "theirs",
      }),
    ];
    const volumeFilters: Record<string, string>[] = [];
    const runtime = {
      listManagedContainers: () => Promise.resolve(containers),
      removeDanglingVolumes: (labels: Record<string, string>, options: { createdBefore: Date }) => {
        expect(options.createdBefore.getTime()).toBeLessThan(Date.now() - 500_000);
        volumeFilters.push(labels);
        return Promise.resolve(["left-by-a-crash"]);
      },
      removeContainer: (id: string) => {
        removed.push(id);
        return Promise.resolve();
      },
      removeIdleProjectNetworks: () => Promise.resolve(["invariant-project-idle"]),
    } as unknown as ContainerRuntime;
    const report = await reconcileContainers({
      runtime,
      self: { id: "me", host: "here", instance: "ours" },
      active: new Set(["mine-active"]),
      liveWorkers: () => Promise.resolve(new Set(["remote-1"])), // "other" is not in this Redis: alive by pid all the same
      isProcessAlive: (pid) => pid === 42 || pid === 1,
      publish: (event) => {
        published.push(event);
        return Promise.resolve();
      },
      log: () => undefined,
    });
    expect(removed.sort()).toEqual(["mine-stale", "remote-silent", "same-host-dead"]);
    expect(report.kept).toBe(5);
    // overlay volumes no container uses: only this installation's
    expect(volumeFilters).toEqual([{ [LABEL.instance]: "ours" }]);
    expect(report.volumes).toEqual(["left-by-a-crash"]);
    expect(report.networks).toEqual(["invariant-project-idle"]);
    expect(published).toEqual([
      expect.objectContaining({
        type: "environment.finished",
        projectId: "p",
        data: expect.objectContaining({ versionId: "v9", status: "failed" }) as unknown,
      }),
    ]);
  });
});
