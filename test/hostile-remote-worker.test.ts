import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { createResultImageFetcher } from "../src/server/core/artifacts/result-image-fetch";
import { createJobQueue } from "../src/server/core/jobs/job-queue";
import { connectRedis } from "../src/server/core/redis/connection";
import { createDockerRuntime } from "../src/server/core/runtime/docker-runtime";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { listWorkers, removeHeartbeat, writeHeartbeat } from "../src/server/core/redis/worker-registry";
import { wireWorkers } from "../src/server/web/wiring/worker-wiring";
import { createWorkspace } from "../src/server/core/workspaces/workspace-store";
import { startHttpHarness, type HttpHarness } from "./support/http-harness";
import { leaseHeaders, resultBody, seedStudy, startJobTaker, type Lease } from "./support/leased-jobs";
import { FAKE_KEY, scriptsDir, startMock } from "./support/study-harness";
import { redisUrlFor, tempDir } from "./support/temp";

/**
 * Issue 23, point 5 on the real worker API (the product's request handler, real SQLite, Redis, BullMQ and
 * Docker): a worker token is trusted with the jobs leased to it only. The test plays a hostile worker on
 * another host that holds one trial's job (taken from the real queue, so it has that job's lock) and tries
 * to read another project's artefacts, deliver results for trials it was never given or that are finished,
 * re-tag an image of the dashboard's engine through an upload, get the model credential, and fill the disk.
 */
const REDIS_URL = redisUrlFor(inject("redisUrl"), 17);
const RESULT_LIMIT = 64 * 1024;
const IMAGE_LIMIT = 256 * 1024;
const HOST = `hostile-${randomBytes(3).toString("hex")}`;
const runtime = createDockerRuntime({ hostCaBundle: null });
const queue = createJobQueue({ redisUrl: REDIS_URL });
const redis = connectRedis({ url: REDIS_URL, name: "hostile-remote-worker-test" });
const madeImages: string[] = [];
const madeTags: string[] = [];
const asked: string[] = [];
let mock: Awaited<ReturnType<typeof startMock>>;
let app: HttpHarness;
let fetcher: ReturnType<typeof createResultImageFetcher>;
let taker: ReturnType<typeof startJobTaker>;

const MODEL_REQUEST = JSON.stringify({
  model: "hostile-hello",
  stream: true,
  input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "hello" }] }],
});
async function call(options: {
  path: string;
  token: string;
  lease: Lease | null;
  method?: string;
  body?: BodyInit;
  headers?: Record<string, string>;
}): Promise<{ status: number; text: string }> {
  const response = await fetch(`${app.base}${options.path}`, {
    method: options.method ?? "GET",
    headers: { authorization: `Bearer ${options.token}`, ...leaseHeaders(options.lease), ...options.headers },
    ...(options.body ? { body: options.body, duplex: "half" } : {}),
  });
  return { status: response.status, text: await response.text() };
}
const messageOf = (text: string) => (JSON.parse(text) as { error?: { message?: string } }).error?.message ?? text;

/** Asks this host's worker for an image (a session's "continue a result"); the image.send job it queued. */
async function askForImage(imageId: string): Promise<{ fetching: Promise<void>; jobId: string }> {
  const before = asked.length;
  const fetching = fetcher.fetch({ imageId, worker: null, host: HOST, trialId: "hostile-trial" });
  fetching.catch(() => undefined);
  const deadline = Date.now() + 60_000;
  while (asked.length === before) {
    if (Date.now() > deadline) throw new Error(`the fetch of ${imageId} queued no image.send job`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { fetching, jobId: asked.at(-1) ?? "" };
}

/** A tiny image of its own, saved to a tar (optionally with `tags` written into its manifest) and removed again. */
function imageTar(options: { name: string; tags?: string[]; padBytes?: number }): {
  id: string;
  tar: string;
  unpacked: string;
} {
  const dir = tempDir(`hostile-image-${options.name}`);
  fs.writeFileSync(path.join(dir, "tool.txt"), `${options.name} ${randomBytes(8).toString("hex")}\n`);
  if (options.padBytes) fs.writeFileSync(path.join(dir, "pad.bin"), randomBytes(options.padBytes));
  const imported = spawnSync("sh", ["-c", `tar -C ${dir} -c . | docker import -c 'LABEL invariant.test=hostile' -`], {
    encoding: "utf8",
  });
  const id = imported.stdout.trim();
  expect(id).toMatch(/^sha256:[0-9a-f]{64}$/);
  madeImages.push(id);
  const unpacked = path.join(dir, "unpacked");
  fs.mkdirSync(unpacked);
  expect(spawnSync("sh", ["-c", `docker save ${id} | tar -C ${unpacked} -x`]).status).toBe(0);
  if (options.tags) {
    const manifestFile = path.join(unpacked, "manifest.json");
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8")) as { RepoTags: string[] | null }[];
    for (const entry of manifest) entry.RepoTags = options.tags;
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));
  }
  const tar = path.join(dir, "image.tar");
  expect(spawnSync("sh", ["-c", `cd ${unpacked} && tar -cf ${tar} *`]).status).toBe(0);
  expect(spawnSync("docker", ["rmi", id]).status).toBe(0);
  return { id, tar, unpacked };
}

/** A ustar header block (and its content, padded) for one archive entry. */
function tarEntry(o: { name: string; type: string; content?: Buffer; linkname?: string }): Buffer {
  const content = o.content ?? Buffer.alloc(0);
  const header = Buffer.alloc(512);
  header.write(o.name, 0, 100);
  header.write(o.type === "5" ? "0000755\0" : "0000644\0", 100);
  header.write("0000000\0", 108);
  header.write("0000000\0", 116);
  header.write(`${content.length.toString(8).padStart(11, "0")}\0`, 124);
  header.write("00000000000\0", 136);
  header.write(o.type, 156);
  header.write(o.linkname ?? "", 157, 100);
  header.write("ustar\u000000", 257);
  header.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of header) sum += byte;
  header.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148);
  return Buffer.concat([header, content, Buffer.alloc((512 - (content.length % 512)) % 512)]);
}

/**
 * The image's `docker save` tree re-packed so that its manifest (naming `tags`) reaches Docker as
 * manifest.json some other way than a plain file of that name: through a link, or a PAX `path` record.
 */
function smuggledTar(o: { unpacked: string; tags: string[]; via: "link" | "pax" }): string {
  const entries: Buffer[] = [];
  const walk = (rel: string) => {
    for (const name of fs.readdirSync(path.join(o.unpacked, rel))) {
      const child = rel ? `${rel}/${name}` : name;
      if (child === "manifest.json" || child === "repositories") continue;
      const full = path.join(o.unpacked, child);
      if (fs.statSync(full).isDirectory()) {
        entries.push(tarEntry({ name: `${child}/`, type: "5" }));
        walk(child);
      } else entries.push(tarEntry({ name: child, type: "0", content: fs.readFileSync(full) }));
    }
  };
  walk("");
  const manifest = JSON.parse(fs.readFileSync(path.join(o.unpacked, "manifest.json"), "utf8")) as object[];
  const tagged = Buffer.from(JSON.stringify(manifest.map((entry) => ({ ...entry, RepoTags: o.tags }))));
  if (o.via === "link") {
    entries.push(tarEntry({ name: "tags.json", type: "0", content: tagged }));
    entries.push(tarEntry({ name: "manifest.json", type: "2", linkname: "tags.json" }));
  } else {
    const record = (body: string) => {
      let length = body.length + 3;
      while (`${length} ${body}\n`.length !== length) length += 1;
      return `${length} ${body}\n`;
    };
    entries.push(tarEntry({ name: "PaxHeaders/decoy", type: "x", content: Buffer.from(record("path=manifest.json")) }));
    entries.push(tarEntry({ name: "decoy.json", type: "0", content: tagged }));
  }
  const tar = path.join(o.unpacked, `..`, `smuggled-${o.via}.tar`);
  fs.writeFileSync(tar, Buffer.concat([...entries, Buffer.alloc(1024)]));
  return tar;
}
const imageIdOf = (reference: string) =>
  spawnSync("docker", ["image", "inspect", "--format", "{{.Id}}", reference], { encoding: "utf8" }).stdout.trim();
const tagsOf = (reference: string) =>
  spawnSync("docker", ["image", "inspect", "--format", "{{json .RepoTags}}", reference], {
    encoding: "utf8",
  }).stdout.trim();

beforeAll(async () => {
  mock = await startMock(scriptsDir({ "hostile-hello": { steps: [{ kind: "reply", text: "hello from the model" }] } }));
  fetcher = createResultImageFetcher({
    runtime,
    queue: {
      ...queue,
      enqueue: async (options) => {
        asked.push(options.jobId ?? "");
        return queue.enqueue(options);
      },
    },
    liveWorkers: () => listWorkers(redis),
    log: () => undefined,
  });
  app = await startHttpHarness({
    redisUrl: REDIS_URL,
    workers: ({ db, dataDir }) =>
      wireWorkers({
        db,
        dataDir,
        redisUrl: REDIS_URL,
        runtime,
        images: fetcher,
        gateway: {
          upstreamBaseUrl: mock.url,
          credential: () => ({ kind: "api-key", apiKey: FAKE_KEY, source: "OPENAI_API_KEY" }),
        },
        workerUploadLimits: { resultBytes: RESULT_LIMIT, imageBytes: IMAGE_LIMIT },
      }),
  });
  await writeHeartbeat(
    redis,
    {
      id: `${HOST}-1`,
      host: HOST,
      pid: 1,
      concurrency: 1,
      version: "test",
      startedAt: new Date().toISOString(),
      lastSeen: new Date().toISOString(),
      remoteAs: "box-a",
      capacity: null,
    },
    600_000,
  );
  taker = startJobTaker({ redisUrl: REDIS_URL, queue });
}, 120_000);

afterAll(async () => {
  await removeHeartbeat(redis, `${HOST}-1`).catch(() => undefined);
  for (const tag of madeTags) spawnSync("docker", ["rmi", tag], { stdio: "ignore" });
  for (const id of madeImages) spawnSync("docker", ["rmi", "-f", id], { stdio: "ignore" });
  await taker.close();
  await queue.close();
  redis.disconnect();
  await app?.close();
  await mock?.close();
}, 60_000);

describe("a worker on another host is trusted with its own jobs only", () => {
  it("reads the artefacts of the job leased to it, and nothing of another job, project or worker", async () => {
    const a = await app.services.workers.tokens.create({ name: "box-a" });
    const b = await app.services.workers.tokens.create({ name: "box-b" });
    const own = await seedStudy(app, "own", [{ state: "queued" }, { state: "queued" }]);
    const other = await seedStudy(app, "other", [{ state: "queued" }]);
    const lease = await taker.takeTrialJob(own, 0);

    // its own job's snapshot and test file: served
    const mine = await call({ path: `/api/worker/snapshots/${own.snapshotId}`, token: a.token, lease });
    expect(mine.status).toBe(200);
    const ownFile = `/api/worker/studies/${own.study.id}/test-files/${own.sha256}`;
    expect((await call({ path: ownFile, token: a.token, lease })).status).toBe(200);

    // another project's snapshot, test file and image, under its own lease: refused, saying whose job it holds
    const snapshot = await call({ path: `/api/worker/snapshots/${other.snapshotId}`, token: a.token, lease });
    expect(snapshot.status).toBe(403);
    expect(messageOf(snapshot.text)).toBe(
      `Snapshot ${other.snapshotId} is not part of job ${lease.jobId}, the job worker "box-a" named: a worker reads and delivers only what the jobs leased to it name.`,
    );
    const file = `/api/worker/studies/${other.study.id}/test-files/${other.sha256}`;
    const testFile = await call({ path: file, token: a.token, lease });
    expect(testFile.status).toBe(403);
    expect(testFile.text).not.toContain("secret test");
    const image = await call({ path: `/api/worker/images/${other.image}`, token: a.token, lease });
    expect(image.status).toBe(403);
    expect(messageOf(image.text)).toMatch(new RegExp(`^Image ${other.image} is not part of job ${lease.jobId}`));

    // without a lease, or with another worker's lease, or a job nobody took: nothing at all
    const bare = await call({ path: `/api/worker/snapshots/${own.snapshotId}`, token: a.token, lease: null });
    expect(bare.status).toBe(403);
    expect(messageOf(bare.text)).toMatch(/^This call names no job/);
    const borrowed = await call({ path: `/api/worker/snapshots/${own.snapshotId}`, token: b.token, lease });
    expect(borrowed.status).toBe(403);
    expect(messageOf(borrowed.text)).toBe(`Job ${lease.jobId} is leased to worker "box-a", not to "box-b".`);
    const untaken = { jobId: `trial-${other.trials[0]?.id}-1`, lock: lease.lock };
    const guessed = await call({ path: `/api/worker/snapshots/${other.snapshotId}`, token: a.token, lease: untaken });
    expect(guessed.status).toBe(403);
    expect(messageOf(guessed.text)).toMatch(/is not running: it is not leased to worker "box-a"/);
  });

  it("delivers results only for its own trial while it is unfinished, never over another trial's workspace", async () => {
    const a = await app.services.workers.tokens.create({ name: "box-results" });
    const seeded = await seedStudy(app, "results", [{ state: "queued" }, { state: "succeeded" }]);
    const [mineRow, localRow] = seeded.trials;
    if (!mineRow || !localRow) throw new Error("seeded two trials");
    const lease = await taker.takeTrialJob(seeded, 0);
    // the finished local trial's workspace, as its local worker left it
    const local = await createWorkspace({ dataDir: app.dataDir, snapshotId: seeded.snapshotId });
    fs.writeFileSync(path.join(local.path, "src", "a.js"), "export const result = 'the local trial';\n");
    await app.db.trial.update({ where: { id: localRow.id }, data: { workspaceId: local.id } });

    const post = (trialId: string, workspaceId: string, content: string) =>
      call({
        path: `/api/worker/trials/${trialId}/attempts/1/results?workspaceId=${workspaceId}`,
        token: a.token,
        lease,
        method: "POST",
        body: resultBody({ trialId, studyId: seeded.study.id, snapshotId: seeded.snapshotId, workspaceId, content }),
      });
    // another trial's results (the finished local one), over its workspace: refused, the workspace untouched
    const foreign = await post(localRow.id, local.id, "export const result = 'forged';\n");
    expect(foreign.status).toBe(403);
    expect(messageOf(foreign.text)).toMatch(
      new RegExp(`^The results of trial ${localRow.id} \\(attempt 1\\) is not part of job ${lease.jobId}`),
    );
    // its own trial's results naming the other trial's workspace: refused too
    const overOther = await post(mineRow.id, local.id, "export const result = 'forged';\n");
    expect(overOther.status).toBe(403);
    expect(messageOf(overOther.text)).toMatch(new RegExp(`^Workspace ${local.id} is not part of job`));
    expect(fs.readFileSync(path.join(local.path, "src", "a.js"), "utf8")).toBe(
      "export const result = 'the local trial';\n",
    );

    // its own, while unfinished: taken
    const wsId = `ws-${randomBytes(12).toString("hex")}`;
    const taken = await post(mineRow.id, wsId, "export const result = 'remote';\n");
    expect(taken.status).toBe(200);
    // once the trial is finished, the same delivery again is refused and changes nothing
    await app.db.trial.update({ where: { id: mineRow.id }, data: { state: "succeeded", workspaceId: wsId } });
    const late = await post(mineRow.id, wsId, "export const result = 'replaced later';\n");
    expect(late.status).toBe(403);
    expect(messageOf(late.text)).toBe(
      `Trial ${mineRow.id} is finished (succeeded): results of attempt 1 are no longer taken.`,
    );
    const workspace = path.join(dataDirPaths(app.dataDir).workspace(wsId).tree, "src", "a.js");
    expect(fs.readFileSync(workspace, "utf8")).toBe("export const result = 'remote';\n");
  });

  it("cannot re-tag an image of the dashboard's engine through an image upload", async () => {
    const a = await app.services.workers.tokens.create({ name: "box-a" });
    // the victim: a tag of the dashboard's engine (as invariant-base:bookworm is for every project)
    const victimTag = `hostile-victim-${randomBytes(3).toString("hex")}:bookworm`;
    const victim = imageTar({ name: "victim" });
    expect(spawnSync("docker", ["load", "-i", victim.tar]).status).toBe(0);
    expect(spawnSync("docker", ["tag", victim.id, victimTag]).status).toBe(0);
    madeTags.push(victimTag);
    // the upload: exactly the image asked for, its manifest naming the victim's tag
    const sent = imageTar({ name: "retag", tags: [victimTag] });
    const { fetching, jobId } = await askForImage(sent.id);
    const lease = await taker.take(jobId, `image:${sent.id}`);
    const upload = await call({
      path: `/api/worker/images/${sent.id}`,
      token: a.token,
      lease,
      method: "POST",
      body: Readable.toWeb(fs.createReadStream(sent.tar)) as unknown as BodyInit,
    });
    expect(upload.status).toBe(200);
    await fetching;
    // loaded by id: the image is here, the victim's tag still names the victim, the upload's tags are gone
    expect(imageIdOf(sent.id)).toBe(sent.id);
    expect(imageIdOf(victimTag)).toBe(victim.id);
    expect(tagsOf(sent.id)).toBe("[]");

    // the manifest smuggled in under a PAX path record: read as manifest.json, so its tags are stripped too
    const paxed = imageTar({ name: "smuggled-pax" });
    const pax = await uploadFor(paxed.id, smuggledTar({ unpacked: paxed.unpacked, tags: [victimTag], via: "pax" }));
    expect(pax.response.status).toBe(200);
    await pax.fetching;
    expect(tagsOf(paxed.id)).toBe("[]");
    expect(imageIdOf(victimTag)).toBe(victim.id);
    // or as a link to another file: the archive is refused, nothing of it kept
    const linked = imageTar({ name: "smuggled-link" });
    const link = await uploadFor(linked.id, smuggledTar({ unpacked: linked.unpacked, tags: [victimTag], via: "link" }));
    expect(link.response.status).toBe(412);
    expect(messageOf(link.response.text)).toMatch(
      /the image archive's entry "manifest\.json" is a link where docker save writes none/,
    );
    await expect(link.fetching).rejects.toThrow();
    expect(imageIdOf(linked.id)).toBe("");
    expect(imageIdOf(victimTag)).toBe(victim.id);

    /** A hostile worker's upload of `tar` for the image.send job a fetch of `imageId` queued. */
    async function uploadFor(imageId: string, tar: string) {
      const asking = await askForImage(imageId);
      const sendLease = await taker.take(asking.jobId, `image:${imageId}`);
      const response = await call({
        path: `/api/worker/images/${imageId}`,
        token: a.token,
        lease: sendLease,
        method: "POST",
        body: Readable.toWeb(fs.createReadStream(tar)) as unknown as BodyInit,
      });
      return { response, fetching: asking.fetching };
    }
  });

  it("never obtains the model credential; its trial's model requests go through the dashboard's gateway", async () => {
    const a = await app.services.workers.tokens.create({ name: "box-model" });
    const seeded = await seedStudy(app, "model", [{ state: "queued" }]);
    const lease = await taker.takeTrialJob(seeded, 0);
    const credential = await call({ path: "/api/worker/credential", token: a.token, lease: null });
    expect(credential.text).not.toContain(FAKE_KEY);
    expect(credential.status).toBe(403);
    // a per-run token the dashboard issued for the trial the worker holds; the model request relayed with it
    const opened = await call({ path: "/api/worker/model/run", token: a.token, lease, method: "POST" });
    expect(opened.status).toBe(200);
    expect(opened.text).not.toContain(FAKE_KEY);
    const { token: runToken } = JSON.parse(opened.text) as { token: string };
    const before = mock.requests();
    const answer = await call({
      path: "/api/worker/model/v1/responses",
      token: a.token,
      lease,
      method: "POST",
      headers: { "content-type": "application/json", "x-invariant-run-token": runToken },
      body: MODEL_REQUEST,
    });
    expect(answer.text).toContain("hello from the model");
    expect(answer.status).toBe(200);
    expect(answer.text).not.toContain(FAKE_KEY);
    expect(mock.requests()).toBe(before + 1); // the mock answers only the real key: the dashboard put it on
    const status = await call({ path: "/api/worker/model/run", token: a.token, lease });
    expect((JSON.parse(status.text) as { usage: { inputTokens: number } | null }).usage).not.toBeNull();
    // the run token alone, or under another lease, reaches nothing
    const b = await app.services.workers.tokens.create({ name: "box-model-b" });
    const stolen = await call({
      path: "/api/worker/model/v1/responses",
      token: b.token,
      lease,
      method: "POST",
      headers: { "content-type": "application/json", "x-invariant-run-token": runToken },
      body: MODEL_REQUEST,
    });
    expect(stolen.status).toBe(403);
  });

  it("refuses an oversize result bundle or image upload with 413 and keeps nothing of it", async () => {
    const a = await app.services.workers.tokens.create({ name: "box-big" });
    const seeded = await seedStudy(app, "big", [{ state: "queued" }]);
    const [row] = seeded.trials;
    if (!row) throw new Error("seeded a trial");
    const lease = await taker.takeTrialJob(seeded, 0);
    const wsId = `ws-${randomBytes(12).toString("hex")}`;
    const big = await call({
      path: `/api/worker/trials/${row.id}/attempts/1/results?workspaceId=${wsId}`,
      token: a.token,
      lease,
      method: "POST",
      body: resultBody({
        trialId: row.id,
        studyId: seeded.study.id,
        snapshotId: seeded.snapshotId,
        workspaceId: wsId,
        content: `export const big = "${"x".repeat(RESULT_LIMIT * 2)}";\n`,
      }),
    });
    expect(big.status).toBe(413);
    expect(messageOf(big.text)).toBe(
      "The trial result bundle is larger than this dashboard accepts (65536 bytes); nothing of it was kept. Raise the limit on the dashboard or send less.",
    );
    const attemptDir = dataDirPaths(app.dataDir).trialAttempt({ trialId: row.id, attempt: 1 }).dir;
    expect(fs.existsSync(attemptDir) ? fs.readdirSync(attemptDir) : []).toEqual([]);
    expect(fs.existsSync(dataDirPaths(app.dataDir).workspace(wsId).dir)).toBe(false);

    const huge = imageTar({ name: "huge", padBytes: IMAGE_LIMIT * 2 });
    const { fetching, jobId } = await askForImage(huge.id);
    const sendLease = await taker.take(jobId, `image:${huge.id}`);
    const upload = await call({
      path: `/api/worker/images/${huge.id}`,
      token: a.token,
      lease: sendLease,
      method: "POST",
      body: Readable.toWeb(fs.createReadStream(huge.tar)) as unknown as BodyInit,
    });
    expect(upload.status).toBe(413);
    expect(messageOf(upload.text)).toMatch(/^The image upload is larger than this dashboard accepts/);
    await expect(fetching).rejects.toThrow();
    expect(imageIdOf(huge.id)).toBe("");
  });
});
