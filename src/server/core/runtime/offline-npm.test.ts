import { describe, expect, it } from "vitest";
import type { ContainerSpec } from "./container-spec";
import { withOfflineNpm } from "./offline-npm";

const spec = (role: ContainerSpec["labels"]["role"], network: ContainerSpec["network"]): ContainerSpec => ({
  image: "invariant-base:bookworm",
  command: ["true"],
  labels: { project: "p", role },
  limits: { cpus: 1, memoryBytes: 1024 ** 3, swapBytes: 0, pids: 64 },
  network,
  env: { HOME: "/root" },
});

describe("npm's offline mode in containers without network", () => {
  it("is on for evaluations in network mode none, and a spec's own setting wins", () => {
    expect(withOfflineNpm(spec("evaluation", "none")).env).toEqual({ npm_config_offline: "true", HOME: "/root" });
    const own = { ...spec("evaluation", "none"), env: { npm_config_offline: "false" } };
    expect(withOfflineNpm(own).env).toEqual({ npm_config_offline: "false" });
  });

  it("is off where the network may be there or may come (agents, sessions, builds, internet mode)", () => {
    for (const role of ["agent", "session", "prepare"] as const)
      expect(withOfflineNpm(spec(role, "none")).env).toEqual({ HOME: "/root" });
    expect(withOfflineNpm(spec("evaluation", "internet")).env).toEqual({ HOME: "/root" });
  });
});
