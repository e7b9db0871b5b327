import net from "node:net";
import { describe, expect, it } from "vitest";
import { isRedisOutage } from "./redis-errors";
import { createDockerRuntime } from "../runtime/docker-runtime";
import { tempDir } from "../../../../test/support/temp";

/** The real error Node gives for connecting to `target` (a unix socket path or a TCP port on loopback). */
function connectError(target: string | number): Promise<Error> {
  return new Promise((resolve) => {
    const socket = typeof target === "number" ? net.connect(target, "127.0.0.1") : net.connect(target);
    socket.once("error", resolve);
  });
}

/** A loopback TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe("telling a Redis outage from other failures", () => {
  it("calls a missing Redis socket or a refused Redis port an outage", async () => {
    expect(isRedisOutage(await connectError(`${tempDir("redis-gone")}/redis.sock`), {})).toBe(true);
    expect(isRedisOutage(await connectError(await closedPort()), {})).toBe(true);
    expect(isRedisOutage(new Error("Connection is closed."), {})).toBe(true);
    expect(isRedisOutage(Object.assign(new Error("gave up"), { name: "MaxRetriesPerRequestError" }), {})).toBe(true);
  });

  it("does not call a missing or refused Docker engine a Redis outage", async () => {
    const dockerDir = tempDir("docker-gone");
    expect(isRedisOutage(await connectError(`${dockerDir}/docker.sock`), {})).toBe(false);
    const port = await closedPort();
    expect(isRedisOutage(await connectError(port), { DOCKER_HOST: `tcp://127.0.0.1:${port}` })).toBe(false);
    expect(isRedisOutage(new Error("(HTTP code 404) no such container"), {})).toBe(false);
    expect(isRedisOutage("not an error", {})).toBe(false);
  });

  it("does not call the runtime's 'Docker is not reachable' a Redis outage, whatever socket it names", async () => {
    const missing = createDockerRuntime({ socketPath: `${tempDir("docker-nowhere")}/engine.sock` });
    const error = await missing.listManagedContainers().then(
      () => null,
      (caught: unknown) => caught,
    );
    expect((error as Error).message).toMatch(/^Docker is not reachable \(connect ENOENT .*engine\.sock\)\. Start/);
    expect(isRedisOutage(error, {})).toBe(false);
  });
});
