import { createHash } from "node:crypto";
import fsp from "node:fs/promises";
import path from "node:path";
import { writeBundle } from "../../../lib/files/file-bundle";
import { dependenciesOf, requireInstalledDependencies } from "../dependencies/dependency-runtime";
import { createKeyedLock } from "../locks/keyed-lock";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { dataDirPaths } from "../storage/data-dir";
import { removeWorkspace } from "../workspaces/workspace-store";
import { touchCacheEntry } from "./artifact-cache";
import { dependencyArchiveMetaSchema } from "./dependency-archive";
import { fetchInstalledDependencies } from "./dependency-fetch";
import type { ArtifactSource } from "./artifact-source";
import type { RegistryPush } from "./registry-publisher";
import { registryHostOf, type ImageRegistry } from "../runtime/registry-transfer";
import { messageOf } from "../../../shared/error-message";
import type { DashboardChannel, JobLease } from "./dashboard-channel";
import { hasSnapshot, receiveSnapshot } from "./snapshot-transfer";
import { trialResultBundle } from "./trial-results";

/**
 * The artifact source of a worker on another host: snapshots, captured test files, environment
 * images and the installed dependencies they name are fetched from the web process over the worker API the first time a job names them, and kept
 * (snapshots under `<data dir>/snapshots/<id>/`, test files under `studies/<id>/test-files/<sha256>`,
 * installed dependencies under `dependencies/<id>/`, images in this host's engine) — all named by content, so a cached copy is never stale. Results go back
 * the same way; the workspace is then removed here (the web process has its copy), the committed image
 * stays in this engine. Each use marks the entry used (artifact-cache.ts prunes the unused ones). Every
 * call names the lease of the job it is for (`forLease`): the dashboard answers only what that job names.
 */
export function createHttpArtifactSource(options: {
  channel: DashboardChannel;
  dataDir: string;
  runtime: Pick<ContainerRuntime, "inspectImage" | "loadImage" | "pullImage">;
  /** This worker's registry credentials, used for pulls from that registry (null: anonymous pulls). */
  registry?: ImageRegistry | null;
  worker: { id: string; host: string };
  log: (message: string) => void;
}): ArtifactSource {
  const { channel, dataDir, runtime, log } = options;
  const lock = createKeyedLock();

  const snapshot = (snapshotId: string, lease: JobLease) =>
    lock(`snapshot:${snapshotId}`, async () => {
      if (hasSnapshot({ dataDir, snapshotId })) return touchCacheEntry(dataDirPaths(dataDir).snapshot(snapshotId).dir);
      const started = Date.now();
      await receiveSnapshot({
        dataDir,
        snapshotId,
        source: await channel.fetch(`/api/worker/snapshots/${snapshotId}`, lease),
      });
      log(`fetched snapshot ${snapshotId.slice(0, 12)} in ${Date.now() - started} ms`);
    });

  async function testFile(studyId: string, sha256: string, lease: JobLease): Promise<void> {
    const dir = dataDirPaths(dataDir).testFiles(studyId);
    const target = path.join(dir, sha256);
    const held = await fsp.readFile(target).catch(() => null);
    if (held && createHash("sha256").update(held).digest("hex") === sha256) return touchCacheEntry(dir);
    const chunks: Buffer[] = [];
    for await (const chunk of await channel.fetch(`/api/worker/studies/${studyId}/test-files/${sha256}`, lease))
      chunks.push(chunk as Buffer);
    const data = Buffer.concat(chunks);
    if (createHash("sha256").update(data).digest("hex") !== sha256)
      throw new Error(`The dashboard sent test file ${sha256.slice(0, 12)} with other bytes than its hash.`);
    await fsp.mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = `${target}.tmp-${process.pid}`;
    await fsp.writeFile(temp, data, { mode: 0o444 });
    await fsp.rename(temp, target);
  }

  const pulled = registryPuller({ ...options, registry: options.registry ?? null });
  const image = (imageId: string, lease: JobLease) =>
    lock(`image:${imageId}`, async () => {
      if (await runtime.inspectImage(imageId)) return;
      if (await pulled(imageId, lease)) return;
      const started = Date.now();
      await runtime.loadImage(await channel.fetch(`/api/worker/images/${encodeURIComponent(imageId)}`, lease));
      if (!(await runtime.inspectImage(imageId)))
        throw new Error(`The image the dashboard sent did not load as ${imageId} on this worker's engine.`);
      log(`loaded image ${imageId.replace(/^sha256:/, "").slice(0, 12)} in ${Date.now() - started} ms`);
    });
  /** The image, and the installed dependencies it names (refused clearly when they could not be had). */
  const imageWithDependencies = async (imageId: string, lease: JobLease) => {
    await image(imageId, lease);
    const labels = (await runtime.inspectImage(imageId))?.labels ?? {};
    const named = dependenciesOf(labels);
    if (named) await lock(`dependencies:${named.dirId}`, () => dependencies(named.dirId, lease));
    await requireInstalledDependencies({ dataDir, labels });
  };

  const dependencies = dependencyFetcher({ channel, dataDir, log });
  const fetchFor = (job: Parameters<ArtifactSource["prepare"]>[0], lease: JobLease) =>
    Promise.all([
      snapshot(job.snapshotId, lease),
      imageWithDependencies(job.image, lease),
      ...job.testFiles.map((file) =>
        lock(`test:${job.studyId}:${file.sha256}`, () => testFile(job.studyId, file.sha256, lease)),
      ),
    ]);
  const imageLocation = { worker: options.worker.id, host: options.worker.host };
  const leased = (lease: JobLease): ArtifactSource => ({
    ...leasedSource({ channel, dataDir, lease, fetchFor: (job) => fetchFor(job, lease) }),
    imageLocation,
    forLease: leased,
  });
  const noLease = () => {
    throw new Error("A worker on another host fetches and delivers only for a job it holds (no job lease was given).");
  };
  return { prepare: noLease, deliver: noLease, imageLocation, forLease: leased };
}

/**
 * An environment image through the dashboard's registry, when it has one: the dashboard pushes it (the
 * worker polls while it does), this engine pulls it by digest, and only the layers missing here move.
 * Resolves to false when the dashboard has no registry or the push or pull failed (said in the log): the
 * caller then falls back to `docker save` over HTTP.
 */
function registryPuller(o: {
  channel: DashboardChannel;
  runtime: Pick<ContainerRuntime, "inspectImage" | "pullImage">;
  registry: ImageRegistry | null;
  log: (message: string) => void;
}) {
  return async (imageId: string, lease: JobLease): Promise<boolean> => {
    const started = Date.now();
    let push: RegistryPush;
    for (;;) {
      push = await o.channel.json<RegistryPush>(`/api/worker/images/${encodeURIComponent(imageId)}/registry`, {
        lease,
      });
      if (push.state !== "pushing") break;
      if (Date.now() - started > REGISTRY_WAIT_MS) {
        push = {
          state: "failed",
          error: `the dashboard's push did not finish within ${REGISTRY_WAIT_MS / 60_000} minutes`,
        };
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, REGISTRY_POLL_MS));
    }
    if (push.state === "none") return false;
    if (push.state === "failed") {
      o.log(
        `image ${imageId.slice(7, 19)} not through the registry (${push.error}); fetching it with docker save instead`,
      );
      return false;
    }
    const auth =
      o.registry && registryHostOf(push.reference) === registryHostOf(o.registry.address) ? o.registry.auth : null;
    try {
      const report = await o.runtime.pullImage({ reference: push.reference, auth });
      if (!(await o.runtime.inspectImage(imageId))) throw new Error(`${push.reference} did not pull as ${imageId}`);
      o.log(
        `pulled image ${imageId.slice(7, 19)} from ${registryHostOf(push.reference)} in ${Date.now() - started} ms (${report.layersPulled} layers pulled, ${report.layersPresent} already here, ${(report.bytes / 1024 / 1024).toFixed(1)} MiB)`,
      );
      return true;
    } catch (error) {
      o.log(
        `could not pull image ${imageId.slice(7, 19)} from the registry (${messageOf(error)}); fetching it with docker save instead`,
      );
      return false;
    }
  };
}
const REGISTRY_POLL_MS = 1_000;
const REGISTRY_WAIT_MS = 30 * 60_000;

/** Fetches the installed dependencies an image names into this data dir, once (dependency-fetch.ts). */
function dependencyFetcher(o: { channel: DashboardChannel; dataDir: string; log: (message: string) => void }) {
  return async (dirId: string, lease: JobLease) => {
    const started = Date.now();
    const url = `/api/worker/dependencies/${dirId}`;
    const fetched = await fetchInstalledDependencies({
      dataDir: o.dataDir,
      dirId,
      source: {
        meta: async () => dependencyArchiveMetaSchema.parse(await o.channel.json(url, { lease })),
        from: (start) => o.channel.fetchFrom(`${url}/archive`, lease, start),
      },
    });
    if (!fetched) return;
    const mib = (fetched.meta.bytes / 1024 / 1024).toFixed(1);
    const resumed = fetched.resumed ? `, resumed ${fetched.resumed}×` : "";
    o.log(
      `fetched installed dependencies ${dirId} (${fetched.meta.files} files, ${mib} MiB${resumed}) in ${Date.now() - started} ms`,
    );
  };
}

/** Prepare and deliver under one job's lease: the lease is bound to this worker's token before anything else. */
function leasedSource(o: {
  channel: DashboardChannel;
  dataDir: string;
  lease: JobLease;
  fetchFor: (job: Parameters<ArtifactSource["prepare"]>[0]) => Promise<unknown>;
}): Pick<ArtifactSource, "prepare" | "deliver"> {
  const { channel, dataDir, lease } = o;
  return {
    async prepare(job) {
      // bound first, even when everything is cached here and no fetch follows
      await channel.json("/api/worker/lease", { method: "POST", lease });
      await o.fetchFor(job);
    },
    async deliver(result) {
      const bundle = trialResultBundle({
        dataDir,
        trialId: result.trialId,
        attempt: result.attempt,
        snapshotId: result.snapshotId,
        workspacePath: result.workspacePath,
        finished: result.finished,
      });
      const query = result.workspaceId ? `?workspaceId=${result.workspaceId}` : "";
      await channel.upload(
        `/api/worker/trials/${result.trialId}/attempts/${result.attempt}/results${query}`,
        writeBundle(bundle),
        lease,
      );
      if (result.workspaceId)
        await removeWorkspace({ dataDir, workspaceId: result.workspaceId }).catch(() => undefined);
    },
  };
}
