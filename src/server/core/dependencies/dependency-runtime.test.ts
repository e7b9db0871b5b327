import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../../../test/support/temp";
import { dataDirPaths } from "../storage/data-dir";
import { dependenciesOf, requireInstalledDependencies, sweepScratch } from "./dependency-runtime";

describe("dependency mounts", () => {
  it("reads the installed dependencies from an image's labels, and ignores what is not a dependency folder id", () => {
    expect(
      dependenciesOf({
        "invariant.dependencies": "deps-0123456789abcdef01234567",
        "invariant.dependency-outputs": "node_modules,.venv",
      }),
    ).toEqual({ dirId: "deps-0123456789abcdef01234567", outputs: ["node_modules", ".venv"] });
    expect(dependenciesOf({ "invariant.dependencies": "../../etc" })).toBeNull();
    expect(dependenciesOf({})).toBeNull();
  });

  it("refuses a worker that lacks the installed dependencies an image names, and lets one that has them run", async () => {
    const dataDir = tempDir("deps-required");
    const dirId = "deps-0123456789abcdef01234567";
    const labels = { "invariant.dependencies": dirId, "invariant.dependency-outputs": "node_modules" };
    await expect(requireInstalledDependencies({ dataDir, labels })).rejects.toThrow(
      /node_modules, folder deps-0123456789abcdef01234567\), and this worker does not have them/,
    );
    await expect(requireInstalledDependencies({ dataDir, labels: {} })).resolves.toBeUndefined();
    fs.mkdirSync(dataDirPaths(dataDir).dependencyDir(dirId).tree, { recursive: true });
    await expect(requireInstalledDependencies({ dataDir, labels })).resolves.toBeUndefined();
  });

  it("sweeps the scratch folders of dead workers on this host only", async () => {
    const dataDir = tempDir("deps-scratch");
    const root = dataDirPaths(dataDir).dependencyScratch;
    const names = {
      dead: "host-a-999999-0123456789abcdef",
      live: `host-a-${process.pid}-0123456789abcdef`,
      otherHost: "host-b-999999-0123456789abcdef",
      unnamed: "0123456789abcdef",
    };
    for (const name of Object.values(names)) fs.mkdirSync(path.join(root, name, "0", "upper"), { recursive: true });
    const removed = await sweepScratch({ dataDir, host: "host-a", isProcessAlive: (pid) => pid === process.pid });
    expect(removed).toBe(1);
    expect(fs.readdirSync(root).sort()).toEqual([names.unnamed, names.otherHost, names.live].sort());
  });
});
