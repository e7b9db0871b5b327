import fs from "node:fs";
import path from "node:path";
import { CODEX_HINT, locateCodexBinary } from "../agents/codex-binary";
import type { ContainerRuntime } from "../runtime/container-runtime";
import { DOCKER_HINT } from "../runtime/docker-runtime";
import { checkClaudeCode, checkGeminiCli, type AgentClisCheckOptions } from "./agent-clis-check";
import { checkCertificates } from "./certificates-check";
import type { DoctorCheck } from "./doctor-check";
import { probeRedis, redactRedisUrl } from "../redis/connection";
import { REDIS_INSTALL_HINT, findRedisServer } from "../redis/private-redis";
import { messageOf } from "../../../shared/error-message";

export interface DoctorReport {
  ok: boolean;
  checkedAt: string;
  checks: DoctorCheck[];
}

export interface DoctorDeps {
  runtime: ContainerRuntime;
  dataDir: string;
  /** A Redis URL to ping; when absent, the check looks for redis-server on PATH. */
  redisUrl: string | null;
  nodeVersion?: string;
  minFreeBytes?: number;
  /** INVARIANT_HOST_CA: "auto" (default), "off" or a bundle's path. */
  hostCa?: string;
  /** Where Claude Code and Gemini CLI are looked for (tests; default this package and the user's cache). */
  agentClis?: AgentClisCheckOptions;
}

const MIN_NODE = [20, 19] as const;

function checkNode(version: string): DoctorCheck {
  const [major = 0, minor = 0] = version.replace(/^v/, "").split(".").map(Number);
  const ok = major > MIN_NODE[0] || (major === MIN_NODE[0] && minor >= MIN_NODE[1]);
  return {
    id: "node",
    title: "Node.js",
    status: ok ? "ok" : "fail",
    required: true,
    detail: `Node.js ${version}`,
    fix: ok ? null : `Install Node.js ${MIN_NODE.join(".")} or newer (https://nodejs.org or your package manager).`,
  };
}

async function checkDocker(runtime: ContainerRuntime): Promise<DoctorCheck> {
  try {
    const info = await runtime.version();
    return {
      id: "docker",
      title: "Docker engine",
      status: "ok",
      required: true,
      detail: `Docker ${info.version} (API ${info.apiVersion}, ${info.os}/${info.arch})`,
      fix: null,
    };
  } catch (error) {
    return {
      id: "docker",
      title: "Docker engine",
      status: "fail",
      required: true,
      detail: error instanceof Error ? (error.message.split(". ")[0] ?? "unreachable") : "unreachable",
      fix: DOCKER_HINT,
    };
  }
}

async function checkRedis(redisUrl: string | null): Promise<DoctorCheck> {
  if (redisUrl) {
    try {
      const { version } = await probeRedis({ url: redisUrl });
      return {
        id: "redis",
        title: "Redis",
        status: "ok",
        required: true,
        detail: `Redis ${version} at ${redactRedisUrl(redisUrl)}`,
        fix: null,
      };
    } catch (error) {
      return {
        id: "redis",
        title: "Redis",
        status: "fail",
        required: true,
        detail: `Cannot reach ${redactRedisUrl(redisUrl)}: ${messageOf(error)}`,
        fix: "Check that Redis runs at that URL, or leave --redis-url unset so invariant-web starts its own.",
      };
    }
  }
  const binary = findRedisServer();
  return binary
    ? {
        id: "redis",
        title: "Redis",
        status: "ok",
        required: true,
        detail: `${binary} (a private Redis is started in the data dir)`,
        fix: null,
      }
    : {
        id: "redis",
        title: "Redis",
        status: "fail",
        required: true,
        detail: "redis-server not found on PATH and no --redis-url given",
        fix: REDIS_INSTALL_HINT,
      };
}

/** The data dir, or the nearest ancestor that exists (the doctor never creates anything). */
function nearestExisting(dir: string): string {
  let current = path.resolve(dir);
  while (!fs.existsSync(current)) {
    const parent = path.dirname(current);
    if (parent === current) break;
    current = parent;
  }
  return current;
}

function checkDisk(dataDir: string, minFreeBytes: number): DoctorCheck {
  try {
    const existing = nearestExisting(dataDir);
    if (!fs.statSync(existing).isDirectory()) throw new Error(`${existing} is not a directory`);
    fs.accessSync(existing, fs.constants.W_OK);
    const stats = fs.statfsSync(existing);
    const free = stats.bavail * stats.bsize;
    const gib = (free / 1024 ** 3).toFixed(1);
    const ok = free >= minFreeBytes;
    return {
      id: "disk",
      title: "Data directory",
      status: ok ? "ok" : "warn",
      required: true,
      detail: `${dataDir}: ${gib} GiB free`,
      fix: ok
        ? null
        : `Free some space or choose another --data-dir: environments and snapshots need at least ${(minFreeBytes / 1024 ** 3).toFixed(0)} GiB.`,
    };
  } catch (error) {
    return {
      id: "disk",
      title: "Data directory",
      status: "fail",
      required: true,
      detail: `${dataDir} is not writable: ${messageOf(error)}`,
      fix: "Choose a writable directory with --data-dir or INVARIANT_DATA_DIR.",
    };
  }
}

function checkCodex(): DoctorCheck {
  const codex = locateCodexBinary();
  return codex
    ? {
        id: "codex",
        title: "Codex CLI",
        status: "ok",
        required: true,
        detail: `Codex ${codex.version} (${codex.path})`,
        fix: null,
      }
    : {
        id: "codex",
        title: "Codex CLI",
        status: "fail",
        required: true,
        detail: "the Linux Codex binary of @openai/codex is not installed",
        fix: CODEX_HINT,
      };
}

/** Runs every check; `ok` is false when a required check fails. Never throws. */
export async function runDoctor(deps: DoctorDeps): Promise<DoctorReport> {
  const checks = [
    checkNode(deps.nodeVersion ?? process.version),
    await checkDocker(deps.runtime),
    await checkRedis(deps.redisUrl),
    checkDisk(deps.dataDir, deps.minFreeBytes ?? 5 * 1024 ** 3),
    checkCodex(),
    checkClaudeCode(deps.agentClis),
    checkGeminiCli(deps.agentClis),
    checkCertificates({ setting: deps.hostCa ?? "auto" }),
  ];
  return {
    ok: checks.every((check) => !check.required || check.status !== "fail"),
    checkedAt: new Date().toISOString(),
    checks,
  };
}
