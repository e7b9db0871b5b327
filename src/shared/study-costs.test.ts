import { describe, expect, it } from "vitest";
import { DEFAULT_MODEL_PRICES, effectivePrices, formatCost, tokenCost } from "./model-prices";
import { budgetReached, studyCosts } from "./study-costs";
import { tokensWithTotal } from "./token-usage";

const price = {
  model: "m",
  inputPerMillion: 2,
  cachedInputPerMillion: 0.5,
  outputPerMillion: 8,
  reasoningPerMillion: 10,
};
const tokens = (input: number, cachedInput: number, output: number, reasoning: number) =>
  tokensWithTotal({ input, cachedInput, output, reasoning });

describe("costs", () => {
  it("prices each part once: uncached and cached input, visible output and reasoning", () => {
    // 8,000 input of which 1,500 cached; 1,100 output of which 300 reasoning
    expect(tokenCost(tokens(8000, 1500, 1100, 300), price)).toBeCloseTo(
      (6500 * 2 + 1500 * 0.5 + 800 * 8 + 300 * 10) / 1e6,
      12,
    );
    expect(formatCost(0.02315)).toBe("$0.02");
    expect(formatCost(0.0023)).toBe("$0.0023");
    expect(formatCost(1234.5)).toBe("$1,234.50");
    expect(formatCost(null)).toBe("unknown price");
  });

  it("gives per configuration the median of finished trials and the total, and an unknown price as null", () => {
    const costs = studyCosts({
      configurations: [
        { choice: 1, model: "m" },
        { choice: 2, model: "mystery" },
      ],
      trials: [
        { id: "a", choice: 1, state: "succeeded", tokens: tokens(1_000_000, 0, 0, 0) },
        { id: "b", choice: 1, state: "succeeded", tokens: tokens(3_000_000, 0, 0, 0) },
        { id: "c", choice: 1, state: "agent", tokens: tokens(500_000, 0, 0, 0) },
        { id: "d", choice: 2, state: "succeeded", tokens: tokens(10, 0, 0, 0) },
        { id: "e", choice: 2, state: "queued", tokens: tokens(0, 0, 0, 0) },
      ],
      prices: [price],
    });
    expect(costs.configurations).toEqual([
      { choice: 1, model: "m", median: 4, total: 9 },
      { choice: 2, model: "mystery", median: null, total: null },
    ]);
    expect(costs.trials.map((trial) => trial.cost)).toEqual([2, 6, 1, null, 0]);
    expect(costs.total).toBeNull();
    expect(costs.unknownModels).toEqual(["mystery"]);
    expect(costs.prices).toEqual([price]);
  });

  it("asks no price for a model whose trials all finished without a token (a command line), until then it does", () => {
    const configurations = [{ choice: 1, model: "(command)" }];
    const free = studyCosts({
      configurations,
      trials: [{ id: "a", choice: 1, state: "succeeded", tokens: tokens(0, 0, 0, 0) }],
      prices: [],
    });
    expect([free.unknownModels, free.total]).toEqual([[], 0]);
    const running = studyCosts({
      configurations,
      trials: [{ id: "a", choice: 1, state: "agent", tokens: tokens(0, 0, 0, 0) }],
      prices: [],
    });
    expect(running.unknownModels).toEqual(["(command)"]);
  });

  it("ships defaults for well-known models, edits override them, and budgets say when they are reached", () => {
    expect(effectivePrices([]).length).toBe(DEFAULT_MODEL_PRICES.length);
    const edited = effectivePrices([{ ...price, model: "gpt-5", updatedAt: "2026-01-01T00:00:00.000Z" }]);
    expect(edited.find((row) => row.model === "gpt-5")).toMatchObject({ inputPerMillion: 2, source: "edited" });
    expect(budgetReached({ budget: { tokens: 1000, money: null }, tokensUsed: 999, cost: null })).toBeNull();
    expect(budgetReached({ budget: { tokens: 1000, money: null }, tokensUsed: 1000, cost: null })).toMatch(
      /^Study budget reached: 1,000 of 1,000 tokens used/,
    );
    expect(budgetReached({ budget: { tokens: null, money: 0.5 }, tokensUsed: 0, cost: 0.51 })).toMatch(
      /\$0\.51 of \$0\.50/,
    );
    expect(budgetReached({ budget: { tokens: null, money: 0.5 }, tokensUsed: 0, cost: null })).toBeNull();
  });
});
