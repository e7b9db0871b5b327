import { execFileSync } from "node:child_process";
import Docker from "dockerode";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startPrivateRedis, type PrivateRedis } from "../src/server/core/redis/private-redis";
import { LABEL } from "../src/server/core/runtime/container-spec";
import { ensureProjectNetwork, projectNetworkName } from "../src/server/core/runtime/project-network";
import { startStudyStack, type StudyStack } from "./support/study-stack";
import {
  addCalendarProject,
  calendarProject,
  createDockerRuntime,
  removeImages,
  tempDir,
  waitForStudy,
} from "./support/study-harness";

/**
 * Issue 25, point 5: a project in network mode `internet` whose trials start at once. Every container of
 * the study (preflight, agents, evaluations) is created on the one project bridge by its id; the bridge
 * goes with the last of them, and with the project when the project is removed.
 */
const docker = new Docker();
const runtime = createDockerRuntime();
const TRIALS = 8;
const CONCURRENCY = 4;
let server: PrivateRedis;
let stack: StudyStack;
let projectId: string;
/** What each started container of the project was created on, is attached to, and the bridges there were then. */
const seen: { mode: string; attached: string[]; present: string[] }[] = [];
let events: NodeJS.ReadableStream | null = null;

/** The networks named as the project's bridge, by the docker CLI (an independent check). */
function bridgeIds(id: string): string[] {
  return execFileSync("docker", ["network", "ls", "-q", "--no-trunc", "--filter", `name=${projectNetworkName(id)}`], {
    encoding: "utf8",
  })
    .split("\n")
    .filter(Boolean);
}

/** Records every container of the project as it starts (its network mode and its networks' ids). */
async function watchStarts(id: string): Promise<void> {
  events = await docker.getEvents({
    filters: { type: ["container"], event: ["start"], label: [`${LABEL.project}=${id}`] },
  });
  events.on("data", (chunk: Buffer) => {
    for (const line of chunk.toString("utf8").split("\n").filter(Boolean)) {
      const event = JSON.parse(line) as { id: string };
      void Promise.all([docker.getContainer(event.id).inspect(), docker.listNetworks()])
        .then(([info, networks]) =>
          seen.push({
            mode: info.HostConfig.NetworkMode ?? "",
            attached: Object.values(info.NetworkSettings.Networks).map((network) => network.NetworkID),
            present: networks.filter((network) => network.Name === projectNetworkName(id)).map((network) => network.Id),
          }),
        )
        .catch(() => undefined); // already removed (a short evaluation): the others tell
    }
  });
}

beforeAll(async () => {
  server = await startPrivateRedis({ dataDir: tempDir("project-network-redis") });
  stack = await startStudyStack({
    name: "project-network",
    redisUrl: server.url,
    runtime,
    scripts: {},
    concurrency: CONCURRENCY,
  });
  projectId = await addCalendarProject({ web: stack.web, runtime, projectDir: calendarProject() });
  await stack.web.services.projects.update({ id: projectId, settings: { networkMode: "internet" } });
  await watchStarts(projectId);
}, 300_000);

afterAll(async () => {
  (events as { destroy?: () => void } | null)?.destroy?.();
  await stack.close();
  await server.stop();
  removeImages(`invariant-trial/${projectId.toLowerCase()}`);
  for (const id of bridgeIds(projectId)) execFileSync("docker", ["network", "rm", id]);
});

describe("a study in network mode internet", () => {
  it(`runs ${TRIALS} trials ${CONCURRENCY} at a time, every container on the project's one bridge, by its id`, async () => {
    const created = await stack.web.services.studies.create(
      {
        projectId,
        title: "Internet at once",
        taskPrompt: "Fix the calendar.",
        // a file, not a folder: Node 24's runner takes `test/` for a module to run
        testCommand: "node --test test/calendar.test.js",
        concurrency: CONCURRENCY,
        configurations: [{ harness: "codex", model: "calendar-fix-all", reasoningEffort: "low", repeats: TRIALS }],
      },
      "admin",
    );
    let most = 0; // bridges of the project at one time
    const study = await waitForStudy({
      web: stack.web,
      studyId: created.id,
      until: (s) => {
        most = Math.max(most, bridgeIds(projectId).length);
        return s.state === "done" || s.state === "stopped" || s.state === "refused";
      },
      timeoutMs: 280_000,
      what: "the study to finish",
    });
    expect(study.trials.map((trial) => `${trial.state} ${trial.verdict?.passed}/${trial.verdict?.total}`)).toEqual(
      Array.from({ length: TRIALS }, () => "succeeded 23/23"),
    );
    expect(most).toBe(1);
    // the preflight and each trial's agent at least; an evaluation removed before it was inspected is not counted
    expect(seen.length).toBeGreaterThanOrEqual(TRIALS + 1);
    // each created on the bridge's id, attached to it alone, and it was the only one of its name
    for (const container of seen) {
      expect(container.present).toHaveLength(1);
      expect(container.attached).toEqual(container.present);
      expect(container.mode).toBe(container.present[0]);
    }
    // (not one bridge for the whole study: it goes with its last container, and a trial between its agent and
    // its evaluation may have been that; the next container makes it again)
    await expect.poll(() => bridgeIds(projectId), { timeout: 10_000 }).toEqual([]);
  }, 300_000);

  it("loses its bridge with the project, and leaves other projects' bridges alone", async () => {
    // a bridge left by a trial that never got its container, and another project's
    const other = `other-${projectId}`;
    await ensureProjectNetwork({ docker, projectId });
    await ensureProjectNetwork({ docker, projectId: other });
    const [othersBridge = ""] = bridgeIds(other);
    // a container on it, so the idle-bridge cleanup of workers in other test files (they share the engine) keeps
    // it: what is under test is that removing this project leaves it
    const holder = execFileSync("docker", ["create", "--network", othersBridge, "invariant-base:bookworm", "true"], {
      encoding: "utf8",
    }).trim();
    try {
      expect(bridgeIds(projectId)).toHaveLength(1);
      const removed = await stack.web.services.projects.remove({ id: projectId });
      expect(removed.leftovers).toEqual([]);
      expect(bridgeIds(projectId)).toEqual([]);
      expect(bridgeIds(other)).toEqual([othersBridge]);
    } finally {
      execFileSync("docker", ["rm", "-f", holder], { stdio: "ignore" });
      await docker
        .getNetwork(othersBridge)
        .remove()
        .catch(() => undefined);
    }
  }, 60_000);
});
