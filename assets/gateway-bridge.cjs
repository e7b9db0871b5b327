// Runs inside agent containers (mounted read-only): listens on the container's loopback and relays
// each connection to the model gateway's unix socket, which is the container's only way out.
// Usage: node gateway-bridge.cjs <port> <socket path> <ready file>
"use strict";
const net = require("node:net");
const fs = require("node:fs");

const [port, socketPath, readyFile] = process.argv.slice(2);
const server = net.createServer((client) => {
  const upstream = net.connect(socketPath);
  client.pipe(upstream).pipe(client);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
});
server.listen(Number(port), "127.0.0.1", () => fs.writeFileSync(readyFile, "ready"));
