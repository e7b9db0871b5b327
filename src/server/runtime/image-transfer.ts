import type Docker from "dockerode";

/**
 * Moving an image between engines without a registry: `docker save` of one image (by id) as a tar
 * stream, `docker load` of such a stream on another engine. A worker on another host fetches the
 * environment image of a trial this way when its own engine lacks it (see docs/scaling.md).
 */
export async function saveImage(docker: Docker, reference: string): Promise<NodeJS.ReadableStream> {
  return docker.getImage(reference).get();
}

/**
 * Loads a `docker save` stream; resolves to what the engine says it loaded (image ids, or the tags of
 * tagged images), rejects with the engine's message when the load fails.
 */
export async function loadImage(docker: Docker, stream: NodeJS.ReadableStream): Promise<string[]> {
  const response = await docker.loadImage(stream, { quiet: true });
  let text = "";
  for await (const chunk of response as AsyncIterable<Buffer>) text += chunk.toString();
  const loaded: string[] = [];
  for (const line of text.split("\n")) {
    if (!line.trim()) continue;
    let parsed: { error?: string; errorDetail?: { message?: string }; stream?: string };
    try {
      parsed = JSON.parse(line) as typeof parsed;
    } catch {
      continue;
    }
    if (parsed.error) throw new Error(`docker load failed: ${parsed.errorDetail?.message ?? parsed.error}`);
    const named = /^Loaded image(?: ID)?: (\S+)/.exec(parsed.stream?.trim() ?? "");
    if (named?.[1]) loaded.push(named[1]);
  }
  return loaded;
}
