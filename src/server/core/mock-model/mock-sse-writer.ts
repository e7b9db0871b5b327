import type http from "node:http";

/** Writes a response's SSE events with backpressure: send() resolves once the socket has room again. */
export function createSseWriter(options: { res: http.ServerResponse; responseId: string; model: string }) {
  const { res } = options;
  let sequence = 0;
  const createdAt = Math.floor(Date.now() / 1000);
  const response = (status: string, extra: Record<string, unknown> = {}) => ({
    id: options.responseId,
    object: "response",
    created_at: createdAt,
    status,
    model: options.model,
    output: [],
    ...extra,
  });
  return {
    response,
    async send(type: string, payload: Record<string, unknown>): Promise<void> {
      const data = JSON.stringify({ type, sequence_number: sequence++, ...payload });
      if (!res.write(`event: ${type}\ndata: ${data}\n\n`)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off("drain", done);
            res.off("close", done);
            resolve();
          };
          res.on("drain", done);
          res.on("close", done);
        });
      }
    },
  };
}
export type SseWriter = ReturnType<typeof createSseWriter>;
