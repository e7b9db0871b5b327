import { z } from "zod";
import { modelPriceSchema } from "./model-prices";

/** The shapes of a study's costs and budget, as views and the report carry them (study-costs.ts computes them). */
const dollars = z.number().finite().nonnegative();

export const studyCostsSchema = z.object({
  currency: z.literal("USD"),
  /** The prices used, one per priced model of the study. */
  prices: z.array(modelPriceSchema),
  /** Models of the study with no price: their costs are unknown. */
  unknownModels: z.array(z.string()),
  trials: z.array(z.object({ trialId: z.string().min(1), cost: dollars.nullable() })),
  configurations: z.array(
    z.object({
      choice: z.int().positive(),
      model: z.string(),
      median: dollars.nullable(),
      total: dollars.nullable(),
    }),
  ),
  total: dollars.nullable(),
});
export type StudyCosts = z.infer<typeof studyCostsSchema>;

/** A study's budget over all its trials: tokens, or US dollars priced by the table; null fields: none. */
export const studyBudgetSchema = z.object({
  tokens: z.int().positive().nullable(),
  money: z.number().finite().positive().nullable(),
});
export type StudyBudget = z.infer<typeof studyBudgetSchema>;
