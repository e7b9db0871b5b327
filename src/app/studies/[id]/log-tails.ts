/** The most of a trial's live log kept in the browser; the full log is a download. */
export const LOG_TAIL_CHARS = 64 * 1024;

export interface LogChunk {
  seq: number;
  text: string;
}

/** Immutable: replaced on every append, so it can be a useSyncExternalStore snapshot. */
export interface TailSnapshot {
  attempt: number;
  chunks: readonly LogChunk[];
}

interface Tail extends TailSnapshot {
  length: number;
}

const EMPTY: TailSnapshot = { attempt: 0, chunks: [] };

/**
 * Live `trial.log` chunks per trial (the current attempt only, the last ~64 KiB), outside React
 * state so a chatty log re-renders only the log view that shows it. Chunks carry a sequence number,
 * so a view that loaded the saved tail at sequence N appends only what came later.
 */
export class LogTails {
  private readonly tails = new Map<string, Tail>();
  private readonly listeners = new Map<string, Set<() => void>>();
  private seq = 0;

  append(trialId: string, attempt: number, text: string): void {
    let tail = this.tails.get(trialId);
    if (tail && attempt < tail.attempt) return; // a late chunk of an older attempt
    if (!tail || attempt > tail.attempt) tail = { attempt, chunks: [], length: 0 };
    this.seq += 1;
    const chunks = [...tail.chunks, { seq: this.seq, text }];
    let length = tail.length + text.length;
    let drop = 0;
    while (length > LOG_TAIL_CHARS && drop < chunks.length - 1) length -= chunks[drop++]?.text.length ?? 0;
    this.tails.set(trialId, { attempt, chunks: drop > 0 ? chunks.slice(drop) : chunks, length });
    this.listeners.get(trialId)?.forEach((listener) => listener());
  }

  /** The sequence number of the newest chunk of any trial. */
  currentSeq(): number {
    return this.seq;
  }

  /** The trial's current tail; the same object until the next append (for useSyncExternalStore). */
  snapshot(trialId: string): TailSnapshot {
    return this.tails.get(trialId) ?? EMPTY;
  }

  subscribe(trialId: string, listener: () => void): () => void {
    let set = this.listeners.get(trialId);
    if (!set) {
      set = new Set();
      this.listeners.set(trialId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }
}
