import type { ConnectionOptions } from "bullmq";
import { redisOptionsFromUrl } from "../redis/connection";

/** Connection options for BullMQ queues, workers and queue events (BullMQ declares its own option type). */
export function queueConnection(url: string): ConnectionOptions {
  return { ...redisOptionsFromUrl(url), maxRetriesPerRequest: null } as ConnectionOptions;
}
