import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { UNIX_SOCKET_PATH_MAX } from "../src/server/core/agents/gateway-socket";
import { checkMounts } from "../src/server/core/runtime/mount-policy";
import { dataDirPaths } from "../src/server/core/storage/data-dir";
import { gatewaySocketPath } from "./model-gateway-host";
import { workerMountPolicy } from "./worker-runtime";

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
});

function dataDirNamed(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

const socketMount = (hostPath: string) => ({ hostPath, containerPath: "/run/invariant/gateway.sock", readOnly: false });

describe("the worker's gateway socket", () => {
  it("is in the data dir's gateway folder when its path fits a unix socket", () => {
    const dataDir = dataDirNamed("iw-");
    const socket = gatewaySocketPath(dataDir, "worker-1");
    expect(socket).toBe(dataDirPaths(dataDir).gatewaySocket("worker-1"));
    expect(() =>
      checkMounts([socketMount(socket)], { policy: workerMountPolicy(dataDir, socket), hostHome: os.homedir() }),
    ).not.toThrow();
  });

  it("moves to a private temp folder for a deep data dir, and the worker's containers may still mount it", () => {
    const dataDir = dataDirNamed(`invariant-${"deep-data-directory-".repeat(4)}`);
    expect(Buffer.byteLength(dataDirPaths(dataDir).gatewaySocket("worker-1"))).toBeGreaterThan(UNIX_SOCKET_PATH_MAX);
    const socket = gatewaySocketPath(dataDir, "worker-1");
    made.push(path.dirname(socket));
    expect(Buffer.byteLength(socket)).toBeLessThanOrEqual(UNIX_SOCKET_PATH_MAX);
    expect(path.dirname(path.dirname(socket))).toBe(os.tmpdir());
    expect(fs.statSync(path.dirname(socket)).mode & 0o777).toBe(0o700);
    const policy = workerMountPolicy(dataDir, socket);
    expect(() => checkMounts([socketMount(socket)], { policy, hostHome: os.homedir() })).not.toThrow();
    // only that folder: another temp folder is still refused
    const other = dataDirNamed("invariant-gateway-");
    expect(() =>
      checkMounts([socketMount(path.join(other, "gateway.sock"))], { policy, hostHome: os.homedir() }),
    ).toThrow(/containers get only folders of the data dir/);
  });
});
