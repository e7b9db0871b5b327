#!/usr/bin/env node
// Makes the base images docker-compose.yml builds from, with no image registry (docs/compose.md, "Offline
// images"): a Node.js image (the debootstrap base image `invariant-base:bookworm` with this host's `node`
// binary and a `node` user, uid 1000), a Redis image (the same base with Debian's redis-server, from the
// Debian mirror), a modules image (the production packages of this checkout's node_modules) and a package
// image (this checkout packed with `npm pack`), both as folders of /opt/invariant-web. Each is tagged with a hash of what it
// is made from, so a second run with nothing changed only looks. Prints the Compose settings that use them:
//   node scripts/compose-images.mjs [--base invariant-base:bookworm] [--json]
// and the test (test/compose.test.ts) calls prepareComposeImages().
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const root = path.resolve(import.meta.dirname, "..");
/** Bump when a recipe below changes, so images made by the old one are not reused. */
const RECIPE = "2";

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", maxBuffer: 64 * 1024 * 1024, ...options });
  if (result.status !== 0)
    throw new Error(
      `${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal}):\n${(result.stderr ?? "").slice(-3000)}`,
    );
  return (result.stdout ?? "").trim();
}

function imageId(tag) {
  const result = spawnSync("docker", ["image", "inspect", "--format", "{{.Id}}", tag], { encoding: "utf8" });
  return result.status === 0 ? result.stdout.trim() : null;
}

function sha256(...parts) {
  const hash = createHash("sha256");
  for (const part of parts) hash.update(part).update("\0");
  return hash.digest("hex");
}

/** Removes the other tags of `tag`'s repository (images an older checkout or recipe made); one in use stays. */
function removeOlderTags(tag) {
  const [repository] = tag.split(":");
  const tags = run("docker", ["images", "--format", "{{.Repository}}:{{.Tag}}", repository]).split("\n");
  for (const old of tags.filter((other) => other && other !== tag))
    spawnSync("docker", ["rmi", old], { stdio: "ignore" });
}

/** Builds `tag` from a temp context holding `files` (name → Buffer|string) and a Dockerfile, unless it exists. */
function buildImage({ tag, dockerfile, files = {}, network = "none", log }) {
  if (imageId(tag)) return tag;
  const context = fs.mkdtempSync(path.join(os.tmpdir(), "invariant-compose-image-"));
  try {
    fs.writeFileSync(path.join(context, "Dockerfile"), dockerfile);
    for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(context, name), content);
    log(`building ${tag}`);
    run("docker", ["build", "--network", network, "-q", "-t", tag, context]);
    removeOlderTags(tag);
  } finally {
    fs.rmSync(context, { recursive: true, force: true });
  }
  return tag;
}

/** The base image with this host's Node.js (it must be a Linux build for the image's architecture). */
function nodeImage({ base, baseId, log }) {
  const node = fs.readFileSync(process.execPath);
  const tag = `invariant-offline/node:${sha256(RECIPE, baseId, node).slice(0, 16)}`;
  return buildImage({
    tag,
    log,
    files: { node },
    dockerfile: [
      `FROM ${base}`,
      "COPY node /usr/local/bin/node",
      // the official node images' user, which the app image runs as
      "RUN chmod 0755 /usr/local/bin/node && useradd --uid 1000 --user-group --create-home --shell /bin/bash node",
      "",
    ].join("\n"),
  });
}

/** The base image with Debian's redis-server, installed from the Debian mirror (plain HTTP, no registry). */
function redisImage({ base, baseId, log }) {
  const tag = `invariant-offline/redis:${sha256(RECIPE, baseId).slice(0, 16)}`;
  return buildImage({
    tag,
    log,
    network: "host", // apt reaches the mirror; nothing else runs in this build
    dockerfile: [
      `FROM ${base}`,
      // policy-rc.d: the package's maintainer script must not start a server inside the build
      "RUN printf '#!/bin/sh\\nexit 101\\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \\",
      " && apt-get update -qq \\",
      " && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server \\",
      " && rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d && mkdir -p /data",
      "WORKDIR /data",
      "",
    ].join("\n"),
  });
}

/** npm's own variables from an enclosing `npm test` would change how the inner npm commands behave. */
function npmEnv() {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: "1" };
  for (const key of Object.keys(env)) if (key.startsWith("npm_")) delete env[key];
  return env;
}

/** Imports the folder `dir` as `/opt/invariant-web/<inside>` of a one-layer image (written once: a build would copy it twice). */
function importFolder({ dir, inside, tag, log }) {
  log(`importing ${tag}`);
  run("sh", [
    "-c",
    'tar -C "$0" --transform "s,^\\.,opt/invariant-web$1," -c . | docker import - "$2"',
    dir,
    inside,
    tag,
  ]);
  removeOlderTags(tag);
  return tag;
}

/**
 * The production packages of this checkout's node_modules (`npm ls --omit=dev`: the set `npm ci
 * --omit=dev` installs from the lockfile), hard-linked (copied across filesystems) and imported as
 * /opt/invariant-web/node_modules: seconds where a fresh `npm ci` takes minutes on a busy machine, and
 * an image of its own, so a change of the code alone does not copy a gigabyte of dependencies again.
 */
function modulesImage({ lock, log }) {
  const listed = run("npm", ["ls", "--omit=dev", "--all", "--parseable", "--loglevel=error"], {
    cwd: root,
    env: npmEnv(),
  });
  const modules = path.join(root, "node_modules");
  const dirs = [...new Set(listed.split("\n").filter((dir) => dir.startsWith(`${modules}${path.sep}`)))].sort();
  const tag = `invariant-offline/modules:${sha256(RECIPE, lock, dirs.join("\n")).slice(0, 16)}`;
  if (imageId(tag)) return tag;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "invariant-compose-modules-"));
  try {
    log("linking its production dependencies");
    // a package inside one already copied (its own nested node_modules) comes with it
    const tops = dirs.filter((dir, i) => !dirs.slice(0, i).some((parent) => dir.startsWith(`${parent}${path.sep}`)));
    for (const dir of tops) {
      const target = path.join(work, path.relative(modules, dir));
      fs.mkdirSync(path.dirname(target), { recursive: true });
      if (spawnSync("cp", ["-al", dir, target]).status !== 0) run("cp", ["-a", dir, target]);
    }
    return importFolder({ dir: work, inside: "/node_modules", tag, log });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/** This checkout packed (its prepack step builds when the build is out of date), at /opt/invariant-web, with its lockfile. */
function packageImage({ lock, log }) {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "invariant-compose-package-"));
  try {
    log("packing this checkout (npm pack)");
    const name = run("npm", ["pack", "--pack-destination", work, "--loglevel=warn"], { cwd: root, env: npmEnv() })
      .split("\n")
      .at(-1);
    const tarball = path.join(work, name);
    const tag = `invariant-offline/package:${sha256(RECIPE, fs.readFileSync(tarball), lock).slice(0, 16)}`;
    if (imageId(tag)) return tag;
    const app = path.join(work, "app");
    fs.mkdirSync(app);
    run("tar", ["-xzf", tarball, "-C", app, "--strip-components=1"]);
    fs.writeFileSync(path.join(app, "package-lock.json"), lock);
    return importFolder({ dir: app, inside: "", tag, log });
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}

/**
 * The offline base images for docker-compose.yml, made when missing; returns the Compose settings
 * (environment variables) that build the stack from them.
 */
export function prepareComposeImages({ base = "invariant-base:bookworm", log = () => undefined } = {}) {
  const baseId = imageId(base);
  if (!baseId) throw new Error(`${base} is missing: build it first with node scripts/base-image.mjs`);
  const lock = fs.readFileSync(path.join(root, "package-lock.json"));
  return {
    NODE_IMAGE: nodeImage({ base, baseId, log }),
    REDIS_IMAGE: redisImage({ base, baseId, log }),
    MODULES_IMAGE: modulesImage({ lock, log }),
    PACKAGE_IMAGE: packageImage({ lock, log }),
    INVARIANT_DOCKERFILE: "docker/packaged.Dockerfile",
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) {
  const { values } = parseArgs({
    options: { base: { type: "string", default: "invariant-base:bookworm" }, json: { type: "boolean" } },
  });
  const settings = prepareComposeImages({
    base: values.base,
    log: (message) => process.stderr.write(`[compose-images] ${message}\n`),
  });
  process.stdout.write(
    values.json
      ? `${JSON.stringify(settings)}\n`
      : Object.entries(settings)
          .map(([key, value]) => `${key}=${value}\n`)
          .join(""),
  );
}
