import type { Db } from "../../core/db/client";
import type { ModelPrice } from "../../../shared/model-prices";

/** The edited rows of the model price table (the shipped defaults live in src/shared/model-prices.ts). */
export function createModelPriceQueries(db: Db) {
  return {
    async editedPrices(): Promise<(ModelPrice & { updatedAt: string })[]> {
      const rows = await db.modelPrice.findMany({ orderBy: { model: "asc" } });
      return rows.map((row) => ({
        model: row.model,
        inputPerMillion: row.inputPerMillion,
        cachedInputPerMillion: row.cachedInputPerMillion,
        outputPerMillion: row.outputPerMillion,
        reasoningPerMillion: row.reasoningPerMillion,
        updatedAt: row.updatedAt.toISOString(),
      }));
    },

    async setPrice(price: ModelPrice, by: string): Promise<void> {
      const { model, ...fields } = price;
      await db.modelPrice.upsert({
        where: { model },
        create: { model, ...fields, updatedBy: by },
        update: { ...fields, updatedBy: by },
      });
    },

    /** Removes an edit: the model goes back to its shipped default, or to an unknown price. */
    async resetPrice(model: string): Promise<boolean> {
      const { count } = await db.modelPrice.deleteMany({ where: { model } });
      return count > 0;
    },
  };
}
