import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import type { Redis } from "ioredis";
import type { AppServices } from "../../src/server/web/wiring/app-services";
import type { Db } from "../../src/server/core/db/client";
import { startMockModel, type MockModelServer } from "../../src/server/core/mock-model/mock-model-server";
import { connectRedis } from "../../src/server/core/redis/connection";
import { createDockerRuntime } from "../../src/server/core/runtime/docker-runtime";
import type { ContainerRuntime } from "../../src/server/core/runtime/container-runtime";
import type { RecordedEvent } from "../../src/shared/event-catalog";
import type { StudyView } from "../../src/shared/study-schemas";
import { openWebCore } from "../../src/server/web/wiring/web-core";
import { ensureAgentImage } from "./agent-image";
import { REPO_ROOT, redisUrlFor, tempDir } from "./temp";

export const FAKE_KEY = "sk-test-STUDY-KEY-789";

/** The web side on a given data dir (reopenable: a restart keeps the database and the Redis). */
export interface StudyWeb {
  db: Db;
  services: AppServices;
  emitted: { room: string; event: RecordedEvent }[];
  close(): Promise<void>;
}

export async function openStudyWeb(options: {
  dataDir: string;
  redisUrl: string;
  runtime: ContainerRuntime;
  sweepEveryMs?: number;
}): Promise<StudyWeb> {
  const emitted: StudyWeb["emitted"] = [];
  const core = await openWebCore({
    root: REPO_ROOT,
    dataDir: options.dataDir,
    redisUrl: options.redisUrl,
    adminToken: "a_admintokenadmintokenadmintoken00",
    publicUrl: "http://127.0.0.1:1",
    version: "test",
    runtime: options.runtime,
    emit: (targets, event) => {
      for (const room of targets) emitted.push({ room, event });
    },
    recorderBlockMs: 100,
  });
  await core.start({ sweepEveryMs: options.sweepEveryMs ?? 500 });
  return { db: core.db, services: core.services, emitted, close: () => core.close() };
}

/** Copies fixtures/calendar-project (23 failing node:test checks) into a fresh project directory. */
export function calendarProject(): string {
  const dir = path.join(tempDir("calendar"), "calendar");
  fs.cpSync(path.join(REPO_ROOT, "fixtures", "calendar-project"), dir, { recursive: true });
  return dir;
}

/** A scripts dir of our own: the shipped mock scripts plus any extra ones a test writes. */
export function scriptsDir(extra: Record<string, unknown> = {}): string {
  const dir = tempDir("scripts");
  fs.cpSync(path.join(REPO_ROOT, "mock-scripts"), dir, { recursive: true });
  for (const [name, script] of Object.entries(extra))
    fs.writeFileSync(path.join(dir, `${name}.json`), JSON.stringify(script));
  return dir;
}

export async function startMock(dir: string): Promise<MockModelServer & { requests: () => number }> {
  let count = 0;
  const mock = await startMockModel({ scriptsDir: dir, apiKey: FAKE_KEY, onRequest: () => (count += 1) });
  return Object.assign(mock, { requests: () => count });
}

/** A project on the calendar fixture with a ready environment version on the agent test image. */
export async function addCalendarProject(options: {
  web: StudyWeb;
  runtime: ContainerRuntime;
  projectDir: string;
}): Promise<string> {
  const image = await ensureAgentImage(options.runtime);
  const info = await options.runtime.inspectImage(image);
  if (!info) throw new Error("agent image missing");
  const project = await options.web.services.projects.add({ hostPath: options.projectDir });
  await options.web.services.projects.update({
    id: project.id,
    settings: { cpus: 1, memoryBytes: 1024 * 1024 * 1024, pids: 512 },
  });
  await options.web.db.environmentVersion.create({
    data: {
      projectId: project.id,
      version: 1,
      imageTag: image,
      imageId: info.id,
      origin: "base",
      status: "ready",
      active: true,
    },
  });
  return project.id;
}

export async function waitForStudy(options: {
  web: StudyWeb;
  studyId: string;
  until: (study: StudyView) => boolean;
  timeoutMs?: number;
  what?: string;
}): Promise<StudyView> {
  const deadline = Date.now() + (options.timeoutMs ?? 120_000);
  for (;;) {
    const study = await options.web.services.studies.get(options.studyId);
    if (options.until(study)) return study;
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${options.what ?? "the study"}: ${JSON.stringify({ state: study.state, refusal: study.refusal, trials: study.trials.map((t) => [t.state, t.step, t.error]) })}`,
      );
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Containers (any state) carrying a label, by the docker CLI: an independent check. */
export function containersWithLabel(label: string): string[] {
  const result = spawnSync("docker", ["ps", "-aq", "--filter", `label=${label}`], { encoding: "utf8" });
  return result.stdout.split("\n").filter(Boolean);
}

export function removeImages(reference: string): void {
  const list = spawnSync("docker", ["images", "-q", reference], { encoding: "utf8" })
    .stdout.split("\n")
    .filter(Boolean);
  if (list.length > 0) spawnSync("docker", ["rmi", "-f", ...new Set(list)], { stdio: "ignore" });
}

export { createDockerRuntime, redisUrlFor, tempDir, connectRedis, REPO_ROOT };
export type { Redis };
