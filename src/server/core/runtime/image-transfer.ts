import { Transform, type TransformCallback } from "node:stream";
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
 * Loads a `docker save` stream by image id only: the tags the tar names are stripped on the way in
 * (stripTarTags), so a tar from elsewhere can never move a tag of this engine (`invariant-base:bookworm`,
 * an environment's version tag). Resolves to the ids the engine loaded; rejects with the engine's message
 * when the load fails.
 */
export async function loadImage(docker: Docker, stream: NodeJS.ReadableStream): Promise<string[]> {
  const untagged = stripTarTags();
  stream.on("error", (error: Error) => untagged.destroy(error));
  const response = await docker.loadImage(stream.pipe(untagged), { quiet: true });
  let text = "";
  for await (const chunk of response as AsyncIterable<Buffer>) text += chunk.toString();
  if (untagged.errored) throw new Error(`docker load failed: ${untagged.errored.message}`);
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

const BLOCK = 512;
/** The archive's own files that name tags: rewritten without them (they are small; a larger one is refused). */
const TAG_FILES = new Set(["manifest.json", "repositories", "index.json"]);
const MAX_META_BYTES = 4 * 1024 * 1024;
/** OCI annotations `docker load` would tag an image with. */
const NAME_ANNOTATIONS = ["io.containerd.image.name", "org.opencontainers.image.ref.name"];

const text = (block: Buffer, start: number, length: number) =>
  block
    .subarray(start, start + length)
    .toString("utf8")
    .replace(/\0.*$/s, "");
const octal = (block: Buffer, start: number, length: number) => parseInt(text(block, start, length).trim() || "0", 8);

/** The same archive file without its tags: manifest.json's RepoTags emptied, `repositories` emptied, OCI names dropped. */
function untag(name: string, content: Buffer): Buffer {
  if (name === "repositories") return Buffer.from("{}");
  const parsed = JSON.parse(content.toString("utf8")) as unknown;
  if (name === "manifest.json" && Array.isArray(parsed))
    return Buffer.from(JSON.stringify(parsed.map((entry: object) => ({ ...entry, RepoTags: null }))));
  if (name === "index.json" && typeof parsed === "object" && parsed !== null) {
    const index = parsed as { manifests?: { annotations?: Record<string, string> }[] };
    for (const manifest of index.manifests ?? [])
      for (const key of NAME_ANNOTATIONS) delete manifest.annotations?.[key];
    return Buffer.from(JSON.stringify(index));
  }
  return content;
}

/** `header` for an entry of `size` bytes: new size field, new checksum. */
function resized(header: Buffer, size: number): Buffer {
  const out = Buffer.from(header);
  out.write(`${size.toString(8).padStart(11, "0")}\0`, 124, 12, "latin1");
  out.fill(" ", 148, 156);
  let sum = 0;
  for (const byte of out) sum += byte;
  out.write(`${sum.toString(8).padStart(6, "0")}\0 `, 148, 8, "latin1");
  return out;
}

const padding = (size: number) => Buffer.alloc((BLOCK - (size % BLOCK)) % BLOCK);

/**
 * Where an entry lands when Docker unpacks the archive, or a refusal: no `..`, no absolute path, nothing
 * under a link, links only where `docker save` writes them (a layer shared by two images), and the tag
 * files only as plain files at the root.
 */
function checkedPath(options: { name: string; type: string; links: Set<string> }): string {
  const { name, type, links } = options;
  const refuse = (why: string) => new Error(`the image archive's entry ${JSON.stringify(name.slice(0, 200))} ${why}`);
  const parts = name.split("/").filter((part) => part !== "" && part !== ".");
  if (name.startsWith("/") || parts.includes("..")) throw refuse("leaves the archive");
  const normal = parts.join("/");
  for (let i = 1; i < parts.length; i += 1)
    if (links.has(parts.slice(0, i).join("/"))) throw refuse("lies under a link");
  if (type === "1" || type === "2") {
    if (!normal.endsWith("/layer.tar")) throw refuse("is a link where docker save writes none");
    links.add(normal);
  }
  if (TAG_FILES.has(normal) && type !== "0" && type !== "\0") throw refuse("is not a plain file");
  return normal;
}

interface Held {
  kind: "pax" | "longname" | "tags";
  header: Buffer;
  name: string;
  size: number;
  chunks: Buffer[];
}

/** The filter's state between chunks: where in which entry it is, and what it holds back. */
class TarUntagger {
  private pending: Buffer = Buffer.alloc(0);
  private remaining = 0; // bytes of the current entry (padded) still to pass or hold
  private held: Held | null = null;
  private next: { path?: string; size?: number } = {}; // from a PAX or GNU long-name entry before a header
  private ended = false;
  private readonly links = new Set<string>();

  /** The bytes to pass on for this chunk (entries held back come out whole, rewritten, once complete). */
  push(chunk: Buffer): Buffer[] {
    const out: Buffer[] = [];
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    const { pending } = this;
    let offset = 0;
    while (offset < pending.length) {
      if (this.ended) {
        out.push(pending.subarray(offset));
        offset = pending.length;
      } else if (this.remaining > 0) {
        const take = Math.min(this.remaining, pending.length - offset);
        const part = pending.subarray(offset, offset + take);
        if (this.held) this.held.chunks.push(Buffer.from(part));
        else out.push(part);
        this.remaining -= take;
        offset += take;
        if (this.remaining === 0) this.finishHeld(out);
      } else if (pending.length - offset >= BLOCK) {
        this.header(pending.subarray(offset, offset + BLOCK), out);
        offset += BLOCK;
        if (this.remaining === 0) this.finishHeld(out);
      } else break;
    }
    this.pending = pending.subarray(offset);
    return out;
  }

  /** What is left at the end; throws when the archive stopped inside an entry. */
  end(): Buffer {
    if (!this.ended || this.held) throw new Error("the image archive ended before its end");
    return this.pending;
  }

  private header(block: Buffer, out: Buffer[]): void {
    if (block.every((byte) => byte === 0)) {
      this.ended = true; // the end-of-archive blocks and whatever follows pass as they are
      out.push(block);
      return;
    }
    const type = String.fromCharCode(block[156] ?? 0);
    const meta = type === "x" || type === "g" || type === "L";
    const size = meta ? octal(block, 124, 12) : (this.next.size ?? octal(block, 124, 12));
    this.remaining = Math.ceil(size / BLOCK) * BLOCK;
    if (meta) {
      if (size > MAX_META_BYTES) throw new Error("the image archive has an oversized extended header");
      const kind = type === "L" ? "longname" : "pax";
      this.held = { kind, header: block, name: type === "g" ? "global" : "", size, chunks: [] };
      return;
    }
    // the ustar prefix field (GNU headers keep times there)
    const prefix = block.subarray(257, 263).toString("latin1") === "ustar\0" ? text(block, 345, 155) : "";
    const name = this.next.path ?? (prefix ? `${prefix}/${text(block, 0, 100)}` : text(block, 0, 100));
    this.next = {};
    const normal = checkedPath({ name, type, links: this.links });
    if (TAG_FILES.has(normal)) {
      if (size > MAX_META_BYTES) throw new Error(`the image archive's ${normal} is larger than it can be`);
      this.held = { kind: "tags", header: block, name: normal, size, chunks: [] };
    } else out.push(block);
  }

  private finishHeld(out: Buffer[]): void {
    const entry = this.held;
    if (!entry) return;
    this.held = null;
    const content = Buffer.concat(entry.chunks).subarray(0, entry.size);
    if (entry.kind === "tags") {
      const body = untag(entry.name, content);
      out.push(resized(entry.header, body.length), body, padding(body.length));
      return;
    }
    if (entry.kind === "longname") this.next.path = content.toString("utf8").replace(/\0.*$/s, "");
    else if (entry.name !== "global") {
      const records = content.toString("utf8");
      const pathRecord = /(?:^|\n)\d+ path=([^\n]*)\n/.exec(records)?.[1];
      const sizeRecord = /(?:^|\n)\d+ size=(\d+)\n/.exec(records)?.[1];
      if (pathRecord !== undefined) this.next.path = pathRecord;
      if (sizeRecord !== undefined) this.next.size = Number(sizeRecord);
    }
    out.push(entry.header, ...entry.chunks);
  }
}

/**
 * A streaming tar filter that passes every entry through unchanged except the archive's tag files at its
 * root, which it holds (bounded), rewrites without tags and emits with a new header. PAX `path`/`size` and
 * GNU long names are read, so an entry is judged by the name Docker gives it and layer data is skipped
 * exactly; an archive that could place a tag file any other way is refused (checkedPath).
 */
export function stripTarTags(): Transform {
  const untagger = new TarUntagger();
  const joined = (parts: Buffer[]) => (parts.length === 1 ? parts[0] : parts.length ? Buffer.concat(parts) : undefined);
  return new Transform({
    transform(chunk: Buffer, _encoding, done: TransformCallback) {
      try {
        done(null, joined(untagger.push(chunk)));
      } catch (error) {
        done(error as Error);
      }
    },
    flush(done: TransformCallback) {
      try {
        done(null, joined([untagger.end()].filter((rest) => rest.length > 0)));
      } catch (error) {
        done(error as Error);
      }
    },
  });
}
