import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs/promises";
import { Readable } from "node:stream";
import { promisify } from "node:util";
import type Docker from "dockerode";
import { messageOf } from "../../../shared/error-message";

const run = promisify(execFile);

/** The programs the product's own helper containers run, taken from this host (never from a project's image), at /usr/bin/<name>. */
export const HELPER_PROGRAMS = ["find", "chown"] as const;

/** The helper image's repository; its tag is the digest of its one layer, so a stale or planted tag is seen. */
export const HELPER_REPOSITORY = "invariant-helper";

export interface HelperImage {
  /** The image id (sha256:…): containers are created from this, never from the tag. */
  id: string;
  /** The digest of its one layer (a deterministic tar of the host's programs and their libraries). */
  layerDigest: string;
  tag: string;
}

/** A file of the helper image: where it comes from on the host, and where it goes in the image. */
interface LayerFile {
  hostPath: string;
  imagePath: string;
}

async function hostProgram(name: string): Promise<string> {
  for (const dir of ["/usr/bin", "/bin"]) {
    const candidate = `${dir}/${name}`;
    if (
      await fs.access(candidate, fs.constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return candidate;
  }
  throw new Error(`This host has no ${name} in /usr/bin or /bin: install findutils and coreutils.`);
}

/** The host files a program needs: itself (at /usr/bin/<name>) and the shared libraries `ldd` lists (with the loader). */
async function programFiles(name: string): Promise<LayerFile[]> {
  const program = await hostProgram(name);
  const files: LayerFile[] = [{ hostPath: program, imagePath: `/usr/bin/${name}` }];
  let output: string;
  try {
    output = (await run("ldd", [program])).stdout;
  } catch (error) {
    // a static program: ldd says "not a dynamic executable" and exits 1
    if (/not a dynamic executable|statically linked/.test(String((error as { stderr?: string }).stderr ?? error)))
      return files;
    throw new Error(
      `Could not list the libraries of ${program} with ldd (${messageOf(error)}): install libc-bin (Debian/Ubuntu) or run the worker as root.`,
      { cause: error },
    );
  }
  for (const line of output.split("\n")) {
    const match = /(?:=>\s*)?(\/\S+)\s+\(0x/.exec(line);
    if (match?.[1]) files.push({ hostPath: match[1], imagePath: match[1] });
  }
  return files;
}

/** One ustar header block: numeric fields in octal, checksum over the header with its field blank. */
function tarHeader(options: { name: string; mode: number; size: number; type: "0" | "5" }): Buffer {
  const header = Buffer.alloc(512, 0);
  const field = (value: string, offset: number, length: number) => header.write(value, offset, length, "ascii");
  const octal = (value: number, length: number) => value.toString(8).padStart(length - 1, "0");
  if (Buffer.byteLength(options.name) > 100) throw new Error(`Path too long for the helper image: ${options.name}`);
  field(options.name, 0, 100);
  field(octal(options.mode, 8), 100, 8);
  field(octal(0, 8), 108, 8); // uid
  field(octal(0, 8), 116, 8); // gid
  field(octal(options.size, 12), 124, 12);
  field(octal(0, 12), 136, 12); // mtime: fixed, so the layer is the same bytes every time
  field(" ".repeat(8), 148, 8);
  field(options.type, 156, 1);
  field("ustar\u000000", 257, 8);
  let sum = 0;
  for (const byte of header) sum += byte;
  field(`${octal(sum, 7)}\u0000`, 148, 8);
  return header;
}

/**
 * A deterministic tar of the given host files at their own paths (real contents, symlinks resolved),
 * with their directories, owned by root and mode 0755: the same host programs give the same bytes.
 */
export async function helperLayer(files: readonly LayerFile[]): Promise<Buffer> {
  const byPath = new Map(files.map((file) => [file.imagePath, file.hostPath]));
  const paths = [...byPath.keys()].sort();
  const dirs = new Set<string>();
  for (const file of paths) {
    const parts = file.split("/").filter(Boolean);
    for (let i = 1; i < parts.length; i++) dirs.add(parts.slice(0, i).join("/"));
  }
  const blocks: Buffer[] = [];
  for (const dir of [...dirs].sort()) blocks.push(tarHeader({ name: `${dir}/`, mode: 0o755, size: 0, type: "5" }));
  for (const file of paths) {
    const data = await fs.readFile(byPath.get(file)!);
    blocks.push(tarHeader({ name: file.slice(1), mode: 0o755, size: data.length, type: "0" }), data);
    const padding = (512 - (data.length % 512)) % 512;
    if (padding) blocks.push(Buffer.alloc(padding, 0));
  }
  blocks.push(Buffer.alloc(1024, 0));
  return Buffer.concat(blocks);
}

/** The image's layers as the engine records them; null when there is no such image. */
async function layersOf(docker: Docker, reference: string): Promise<{ id: string; layers: string[] } | null> {
  const info = await docker
    .getImage(reference)
    .inspect()
    .catch((error: unknown) => {
      if ((error as { statusCode?: number }).statusCode === 404) return null;
      throw error;
    });
  if (!info) return null;
  const config = info.Config as { Env?: string[] | null; Entrypoint?: unknown; Volumes?: unknown } | undefined;
  // an image with this layer but a configuration of its own (environment, entrypoint, volumes) is not ours
  const plain = !config || ((config.Env ?? []).length === 0 && !config.Entrypoint && !config.Volumes);
  return { id: info.Id, layers: plain ? ((info.RootFS as { Layers?: string[] } | undefined)?.Layers ?? []) : [] };
}

/**
 * The product's own image for the short root containers it starts for itself (handing back file
 * ownership for a worker that is not root): the host's `find` and `chown` with their libraries and
 * nothing else — no shell, no package manager, nothing a project's build or postinstall could have
 * replaced. Imported offline (no registry) and checked by content: an existing `invariant-helper:<digest>`
 * is used only when its one layer is exactly these bytes, else it is imported again. Containers name it by id.
 */
export async function ensureHelperImage(docker: Docker): Promise<HelperImage> {
  const files = (await Promise.all(HELPER_PROGRAMS.map((name) => programFiles(name)))).flat();
  const layer = await helperLayer(files);
  const layerDigest = `sha256:${createHash("sha256").update(layer).digest("hex")}`;
  const tag = `${HELPER_REPOSITORY}:${layerDigest.slice(7, 19)}`;
  const existing = await layersOf(docker, tag);
  if (existing && existing.layers.length === 1 && existing.layers[0] === layerDigest)
    return { id: existing.id, layerDigest, tag };
  const [repo, version] = tag.split(":") as [string, string];
  const response = await docker.importImage(Readable.from([layer]), { repo, tag: version });
  let text = "";
  for await (const chunk of response as AsyncIterable<Buffer>) text += chunk.toString();
  const failure = /"error"\s*:\s*"([^"]*)"/.exec(text);
  if (failure) throw new Error(`Could not import the helper image ${tag}: ${failure[1]}`);
  const imported = await layersOf(docker, tag);
  if (!imported || imported.layers.length !== 1 || imported.layers[0] !== layerDigest)
    throw new Error(`The helper image ${tag} the engine holds is not the one just imported: its layers differ.`);
  return { id: imported.id, layerDigest, tag };
}
