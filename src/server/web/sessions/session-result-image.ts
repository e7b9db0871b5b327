import { AppError } from "../../core/errors/app-error";
import type { ResultImageRequest } from "../../core/artifacts/result-image-fetch";
import type { ProjectView } from "../../../shared/project-schemas";
import { toSessionView, type SessionDeps, type TrialOrigin } from "./session-deps";
import { filesOf, type SessionFiles } from "./session-files";
import type { SessionRecord } from "./sessions.queries";
import { messageOf } from "../../../shared/error-message";

const short = (imageId: string) => imageId.replace(/^sha256:/, "").slice(0, 12);

/**
 * A trial's committed agent container (its tools): on this host's engine, or on the engine of the worker
 * on another host that ran it (then `fetchFrom` says where; the session fetches it before it starts).
 * Refused clearly when it was never made or was removed.
 */
export async function resultImageOf(
  deps: SessionDeps,
  origin: TrialOrigin,
): Promise<{ image: string; fetchFrom: ResultImageRequest | null }> {
  const image = origin.committedImage;
  if (!image)
    throw new AppError({
      code: "PRECONDITION_FAILED",
      message: `Trial ${origin.trialId} has no result image to continue in: its agent container is committed when its agent finishes, and this one was not (the trial has not finished, or ended before its agent ran).`,
    });
  // moved here before (or made here): no fetch
  if (await deps.runtime.inspectImage(image)) return { image, fetchFrom: null };
  if (origin.imageHost && deps.resultImages && /^sha256:[0-9a-f]{64}$/.test(image))
    return {
      image,
      fetchFrom: {
        imageId: image,
        worker: origin.imageWorker ?? null,
        host: origin.imageHost,
        trialId: origin.trialId,
      },
    };
  throw new AppError({
    code: "PRECONDITION_FAILED",
    // a worker on another host keeps its trials' images on its own engine
    message: origin.imageHost
      ? `Trial ${origin.trialId} ran on a worker on another host: its result image ${short(image)} is on the Docker engine of ${origin.imageHost}. To continue with its tools, \`docker save\` it there and \`docker load\` it here; or start a private-copy session from the Sessions page (its files are here).`
      : `Trial ${origin.trialId}'s result image ${short(image)} is no longer in Docker (it was removed), so the trial cannot be continued with its tools. Start a private-copy session from the Sessions page instead.`,
  });
}

/** What a started container resolves to (session-start.ts `launch`). */
type Launch = (files: SessionFiles, record: SessionRecord) => Promise<{ started: Promise<SessionRecord> }>;

/**
 * A continue-a-result session whose image is on another host: the record says "fetching" at once (state
 * starting, its reason naming the host) and the call returns; the image is fetched, then the trial's
 * workspace is copied and the container started. A refusal finishes the session with what was wrong and
 * what to do; nothing was copied or started by then, and the fetcher kept no image of a failed load.
 */
export async function fetchThenLaunch(options: {
  deps: SessionDeps;
  record: SessionRecord;
  project: ProjectView;
  origin: TrialOrigin;
  fetchFrom: ResultImageRequest;
  launch: Launch;
}): Promise<{ record: SessionRecord; started: Promise<SessionRecord> }> {
  const { deps, fetchFrom } = options;
  const fetching = await deps.sessions.update(options.record.id, {
    reason: `Fetching the trial's result image ${short(fetchFrom.imageId)} from ${fetchFrom.host} (the worker there ran the trial and keeps it on its Docker engine)…`,
  });
  const finish = (reason: string) =>
    deps.sessions.update(fetching.id, { state: "finished", reason, leaseExpiresAt: null, endedAt: deps.clock() });
  const started = (async (): Promise<SessionRecord> => {
    const fetched = await deps.resultImages?.fetch(fetchFrom).then(
      () => null,
      (error: unknown) => error,
    );
    if (fetched) return finish(`Could not start: ${messageOf(fetched)}`);
    // finished by hand while the image travelled: nothing more to do
    const now = await deps.sessions.find(fetching.id);
    if (now?.state !== "starting") return now ?? fetching;
    try {
      const files = await filesOf({
        deps,
        project: options.project,
        mode: "private",
        origin: options.origin,
        image: now.image,
      });
      const ready = await deps.sessions.update(now.id, { workspaceId: files.workspaceId, reason: null });
      deps.changed(toSessionView(ready, 0));
      return await (
        await options.launch(files, ready)
      ).started;
    } catch (error) {
      // a launch that failed has already finished the record with its reason
      const after = await deps.sessions.find(fetching.id);
      return after?.state === "finished" ? after : finish(`Could not start: ${messageOf(error)}`);
    }
  })();
  return { record: fetching, started };
}
