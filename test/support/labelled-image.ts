import { spawnSync } from "node:child_process";
import { BASE_IMAGE } from "./environment-harness";

/** Builds a tiny image on `from` (the base image by default) carrying `labels` (no layer, offline); returns its id. */
export function labelledImage(labels: Record<string, string>, from = BASE_IMAGE): string {
  const dockerfile = `FROM ${from}\nLABEL ${Object.entries(labels)
    .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
    .join(" ")}\n`;
  const result = spawnSync("docker", ["build", "-q", "-"], { input: dockerfile, encoding: "utf8" });
  const id = result.stdout.trim();
  if (result.status !== 0 || !id.startsWith("sha256:")) throw new Error(`docker build failed: ${result.stderr}`);
  return id;
}

/** Images (by the docker CLI, an independent check) carrying a label. */
export function imagesWithLabel(label: string): string[] {
  const result = spawnSync("docker", ["images", "-aq", "--no-trunc", "--filter", `label=${label}`], {
    encoding: "utf8",
  });
  return [...new Set(result.stdout.split("\n").filter(Boolean))];
}

export function removeImageQuietly(id: string): void {
  spawnSync("docker", ["rmi", "-f", id], { stdio: "ignore" });
}
