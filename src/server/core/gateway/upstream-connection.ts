import net from "node:net";
import tls from "node:tls";

/**
 * The model gateway's keep-alive connections to its one upstream. A plain TCP connection reads into
 * one reusable buffer (Node's `onread`), replaced only when a handler keeps a chunk: streaming a
 * megabyte allocates nothing per read, so no garbage collection is needed to free read buffers.
 */
export interface Connection {
  socket: net.Socket;
  /** The exchange reading this connection; null while it is idle in the pool. */
  onChunk: ((chunk: Buffer) => void) | null;
  /** Plain TCP only: the memory reads go into. */
  readBuffer: Buffer;
  /** A handler kept the last chunk: the next read gets fresh memory. */
  chunkKept: boolean;
}

const MAX_IDLE = 32;
const IDLE_MS = 4000;

// Large enough to take what a fast upstream has queued in one read: measured against 64 KiB, the
// gateway then costs no more than a raw TCP relay (docs/benchmarks.md). One buffer per connection.
const READ_SIZE = 256 * 1024;

function openConnection(options: {
  host: string;
  port: number;
  secure: boolean;
  tls: tls.ConnectionOptions | undefined;
}): Connection {
  const { host, port } = options;
  const conn: Connection = {
    socket: null as unknown as net.Socket,
    onChunk: null,
    readBuffer: Buffer.allocUnsafe(READ_SIZE),
    chunkKept: false,
  };
  const deliver = (chunk: Buffer) => {
    if (conn.onChunk) conn.onChunk(chunk);
    else conn.socket.destroy(); // bytes on an idle connection: it cannot be reused
  };
  if (options.secure) {
    conn.socket = tls.connect({
      host,
      port,
      servername: net.isIP(host) ? undefined : host,
      ALPNProtocols: ["http/1.1"],
      ...options.tls,
    });
    conn.socket.on("data", deliver);
  } else {
    conn.socket = net.connect({
      host,
      port,
      onread: {
        // called after every read for the next one: the same buffer unless a handler kept the last chunk
        buffer: () => {
          if (conn.chunkKept) {
            conn.readBuffer = Buffer.allocUnsafe(READ_SIZE);
            conn.chunkKept = false;
          }
          return conn.readBuffer;
        },
        callback: (length, buffer) => {
          deliver((buffer as Buffer).subarray(0, length));
          return true; // false would pause the socket
        },
      },
    });
  }
  conn.socket.setNoDelay(true);
  return conn;
}

export function createConnectionPool(options: { baseUrl: URL; tls?: tls.ConnectionOptions }) {
  const { baseUrl } = options;
  const secure = baseUrl.protocol === "https:";
  const host = baseUrl.hostname.replace(/^\[|\]$/g, "");
  const port = Number(baseUrl.port || (secure ? 443 : 80));
  const idle: Connection[] = [];
  let closed = false;

  return {
    connect: (): Connection => openConnection({ host, port, secure, tls: options.tls }),

    /** Keeps a connection whose exchange ended cleanly for the next request (or closes it). */
    park(conn: Connection): void {
      const { socket } = conn;
      conn.onChunk = null;
      if (closed || idle.length >= MAX_IDLE || socket.destroyed) return void socket.destroy();
      const drop = () => {
        const at = idle.indexOf(conn);
        if (at !== -1) idle.splice(at, 1);
        socket.destroy();
      };
      socket.once("close", drop).once("error", drop).once("timeout", drop);
      socket.setTimeout(IDLE_MS);
      socket.unref();
      idle.push(conn);
    },

    takeIdle(): Connection | null {
      const conn = idle.pop();
      if (!conn) return null;
      conn.socket.removeAllListeners("close").removeAllListeners("error").removeAllListeners("timeout");
      conn.socket.setTimeout(0);
      conn.socket.ref();
      return conn;
    },

    close(): void {
      closed = true;
      for (const conn of idle.splice(0)) conn.socket.destroy();
    },
  };
}
export type ConnectionPool = ReturnType<typeof createConnectionPool>;
