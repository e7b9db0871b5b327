import {
  createSnapshotInputSchema,
  projectSnapshotsInputSchema,
  snapshotIdInputSchema,
} from "../../../shared/snapshot-schemas";
import { procedure, router } from "./init";

export const snapshotsRouter = router({
  create: procedure.input(createSnapshotInputSchema).mutation(({ ctx, input }) => ctx.services.snapshots.create(input)),
  list: procedure.input(projectSnapshotsInputSchema).query(({ ctx, input }) => ctx.services.snapshots.list(input)),
  get: procedure.input(snapshotIdInputSchema).query(({ ctx, input }) => ctx.services.snapshots.get(input)),
});
