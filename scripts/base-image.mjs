#!/usr/bin/env node
// Builds the default base image `invariant-base:bookworm` offline from Debian packages (no image
// registry needed): debootstrap a minimal Debian, then `docker import` it. Used by `npm test` and
// available to users: `node scripts/base-image.mjs [--tag NAME:TAG] [--mirror URL] [--force]`.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    tag: { type: "string", default: "invariant-base:bookworm" },
    mirror: { type: "string", default: process.env.INVARIANT_DEBIAN_MIRROR ?? "http://deb.debian.org/debian" },
    force: { type: "boolean", default: false },
  },
});

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { stdio: "inherit", ...options });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status ?? result.signal})`);
}

const exists = spawnSync("docker", ["image", "inspect", values.tag], { stdio: "ignore" }).status === 0;
if (exists && !values.force) {
  process.stderr.write(`[base-image] ${values.tag} already exists\n`);
  process.exit(0);
}
if (spawnSync("sh", ["-c", "command -v debootstrap"], { stdio: "ignore" }).status !== 0) {
  process.stderr.write("[base-image] debootstrap is missing: apt-get install -y debootstrap\n");
  process.exit(1);
}
const rootfs = fs.mkdtempSync(path.join(os.tmpdir(), "invariant-rootfs-"));
try {
  process.stderr.write(`[base-image] debootstrap bookworm from ${values.mirror} (about a minute)\n`);
  run(
    "debootstrap",
    ["--variant=minbase", "--include=git,nodejs,ca-certificates,procps", "bookworm", rootfs, values.mirror],
    { stdio: ["ignore", "ignore", "inherit"] },
  );
  fs.rmSync(path.join(rootfs, "var", "cache", "apt", "archives"), { recursive: true, force: true });
  fs.mkdirSync(path.join(rootfs, "var", "cache", "apt", "archives", "partial"), { recursive: true });
  process.stderr.write(`[base-image] importing as ${values.tag}\n`);
  const tar = spawnSync(
    "sh",
    [
      "-c",
      `tar -C "${rootfs}" -c . | docker import -c 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' -c 'CMD ["/bin/bash"]' - "${values.tag}"`,
    ],
    { stdio: "inherit" },
  );
  if (tar.status !== 0) throw new Error("docker import failed");
} finally {
  fs.rmSync(rootfs, { recursive: true, force: true });
}
