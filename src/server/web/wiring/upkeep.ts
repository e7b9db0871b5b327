import type { SessionService } from "../sessions/session-service";
import { messageOf } from "../../../shared/error-message";

/**
 * The web process's background upkeep: the trial sweeper, stalled environment builds, and removals a
 * crash interrupted (once at start).
 */
export function createUpkeep(deps: {
  sweeper: { start(everyMs: number): void; stop(): Promise<void> };
  sweepBuilds: () => Promise<unknown>;
  resumeRemovals: () => Promise<void>;
  sessions: Pick<SessionService, "begin" | "close"> & { closeGateway(): Promise<void> };
  log: (message: string) => void;
}) {
  const report = (what: string) => (error: unknown) => deps.log(`${what}: ${messageOf(error)}`);
  let buildSweep: NodeJS.Timeout | null = null;
  return {
    start(everyMs: number) {
      deps.sweeper.start(everyMs);
      void deps.resumeRemovals().catch(report("storage"));
      const sweepBuilds = () => void deps.sweepBuilds().catch(report("environments"));
      sweepBuilds();
      buildSweep = setInterval(sweepBuilds, everyMs);
      void deps.sessions.begin().catch(report("sessions"));
    },
    async stop() {
      if (buildSweep) clearInterval(buildSweep);
      await deps.sweeper.stop();
      await deps.sessions.close();
      await deps.sessions.closeGateway();
    },
  };
}
