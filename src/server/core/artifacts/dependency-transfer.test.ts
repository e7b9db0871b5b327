import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { dataDirPaths } from "../storage/data-dir";
import { dependencyArchive, dependencyArchiveStream, type DependencyArchiveMeta } from "./dependency-archive";
import { fetchInstalledDependencies, type DependencyArchiveSource } from "./dependency-fetch";

const DIR_ID = `deps-${"c".repeat(24)}`;

/** A dependency step's tree on the dashboard host: manifests, node_modules with a link, a script, a binary file. */
function installedTree(dataDir: string): string {
  const tree = dataDirPaths(dataDir).dependencyDir(DIR_ID).tree;
  const modules = path.join(tree, "node_modules");
  fs.mkdirSync(path.join(modules, ".bin"), { recursive: true });
  fs.writeFileSync(path.join(tree, "package.json"), "{}\n"); // a manifest: not an output, does not travel
  for (let i = 0; i < 40; i += 1) {
    fs.mkdirSync(path.join(modules, `pkg-${i}`, "lib"), { recursive: true });
    fs.writeFileSync(path.join(modules, `pkg-${i}`, "lib", "index.js"), `module.exports = ${i};\n`.repeat(200));
  }
  fs.writeFileSync(path.join(modules, "pkg-0", "cli.js"), "#!/usr/bin/env node\nconsole.log('hi')\n", { mode: 0o755 });
  fs.symlinkSync("../pkg-0/cli.js", path.join(modules, ".bin", "greet"));
  fs.writeFileSync(path.join(modules, "pkg-1", "native.node"), Buffer.from([0, 1, 2, 255, 254, 0, 7]));
  fs.mkdirSync(path.join(tree, ".venv", "bin"), { recursive: true });
  fs.writeFileSync(path.join(tree, ".venv", "bin", "python"), "#!/bin/sh\n", { mode: 0o755 });
  return tree;
}

/** Every file and link under `root`: its kind, mode bits that travel and content (or link target). */
function describeTree(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      const sub = rel ? `${rel}/${entry.name}` : entry.name;
      const full = path.join(root, sub);
      if (entry.isDirectory()) walk(sub);
      else if (entry.isSymbolicLink()) out[sub] = `link → ${fs.readlinkSync(full)}`;
      else out[sub] = `${fs.statSync(full).mode & 0o111 ? "x" : "-"} ${fs.readFileSync(full).toString("base64")}`;
    }
  };
  walk("");
  return out;
}

/** The dashboard's archive served as the worker API does, optionally cut off or altered on the way. */
function servedFrom(
  dataDir: string,
  meta: DependencyArchiveMeta,
  options: { cutAfter?: number; flipByte?: number; ignoreRange?: boolean } = {},
): DependencyArchiveSource & { starts: number[] } {
  const starts: number[] = [];
  let cut = options.cutAfter;
  return {
    starts,
    meta: () => Promise.resolve(meta),
    async from(start) {
      starts.push(start);
      const part = await dependencyArchiveStream({ dataDir, dirId: DIR_ID, start: options.ignoreRange ? 0 : start });
      async function* body() {
        let offset = part.start;
        for await (const chunk of part.stream as AsyncIterable<Buffer>) {
          const bytes = Buffer.from(chunk);
          if (options.flipByte !== undefined && options.flipByte >= offset && options.flipByte < offset + bytes.length)
            bytes[options.flipByte - offset] = (bytes[options.flipByte - offset] ?? 0) ^ 0xff;
          if (cut !== undefined && offset + bytes.length > cut) {
            const keep = cut - offset;
            cut = undefined; // only the first answer is cut off
            yield bytes.subarray(0, keep);
            throw new Error("connection reset");
          }
          offset += bytes.length;
          yield bytes;
        }
      }
      return { start: part.start, body: body() };
    },
  };
}

describe("installed dependencies travelling to a worker on another host", () => {
  it("arrive whole after a cut-off download is resumed: links, modes and bytes as installed, outputs only", async () => {
    const dashboard = tempDir("deps-dashboard");
    const tree = installedTree(dashboard);
    const meta = await dependencyArchive({ dataDir: dashboard, dirId: DIR_ID, outputs: ["node_modules", ".venv"] });
    expect(meta).toMatchObject({ dirId: DIR_ID, files: 44, outputs: ["node_modules", ".venv"] });
    // made once: asking again reads the same archive
    expect(await dependencyArchive({ dataDir: dashboard, dirId: DIR_ID, outputs: ["node_modules"] })).toEqual(meta);

    const worker = tempDir("deps-worker");
    const source = servedFrom(dashboard, meta, { cutAfter: Math.floor(meta.bytes / 3) });
    const fetched = await fetchInstalledDependencies({ dataDir: worker, dirId: DIR_ID, source });
    expect(fetched).toMatchObject({ resumed: 1, meta: { sha256: meta.sha256 } });
    expect(source.starts).toEqual([0, Math.floor(meta.bytes / 3)]);

    const expected = describeTree(tree);
    delete expected["package.json"];
    const arrived = dataDirPaths(worker).dependencyDir(DIR_ID).tree;
    expect(describeTree(arrived)).toEqual(expected);
    expect(expected["node_modules/.bin/greet"]).toBe("link → ../pkg-0/cli.js");
    expect(expected["node_modules/pkg-0/cli.js"]?.startsWith("x ")).toBe(true);
    // nothing of the download is left beside the tree
    expect(fs.readdirSync(dataDirPaths(worker).dependencies)).toEqual([DIR_ID]);

    // the next trial finds them here and fetches nothing
    const again = servedFrom(dashboard, meta);
    expect(await fetchInstalledDependencies({ dataDir: worker, dirId: DIR_ID, source: again })).toBeNull();
    expect(again.starts).toEqual([]);
  });

  it("are refused with nothing kept when a byte changed on the way, and start over when ranges are not honoured", async () => {
    const dashboard = tempDir("deps-dashboard-2");
    installedTree(dashboard);
    const meta = await dependencyArchive({ dataDir: dashboard, dirId: DIR_ID, outputs: ["node_modules"] });
    const worker = tempDir("deps-worker-2");
    await expect(
      fetchInstalledDependencies({
        dataDir: worker,
        dirId: DIR_ID,
        source: servedFrom(dashboard, meta, { flipByte: Math.floor(meta.bytes / 2) }),
      }),
    ).rejects.toThrow(/arrived with other bytes than their sha256 .*nothing was kept/);
    expect(fs.readdirSync(dataDirPaths(worker).dependencies)).toEqual([]);

    // a server that answers a resumed request with the whole archive (200, not 206): the file starts over
    const whole = servedFrom(dashboard, meta, { cutAfter: 1000, ignoreRange: true });
    expect(await fetchInstalledDependencies({ dataDir: worker, dirId: DIR_ID, source: whole })).toMatchObject({
      meta: { sha256: meta.sha256 },
    });
    expect(describeTree(dataDirPaths(worker).dependencyDir(DIR_ID).tree)["node_modules/pkg-1/native.node"]).toBe(
      `- ${Buffer.from([0, 1, 2, 255, 254, 0, 7]).toString("base64")}`,
    );

    // a description naming another folder than the one asked for is refused before anything is fetched
    const other = `deps-${"d".repeat(24)}`;
    await expect(
      fetchInstalledDependencies({ dataDir: worker, dirId: other, source: servedFrom(dashboard, meta) }),
    ).rejects.toThrow(`described dependency folder ${DIR_ID} when ${other} was asked for`);
  });
});
