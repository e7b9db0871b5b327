// The Markdown report's cost section: per configuration (median, total) and for the study, with the prices used.
import { formatCost } from "../../../shared/model-prices";
import type { StudyReport } from "../../../shared/study-report";
import { codeSpan, escapeCell, escapeInline } from "./markdown-text";
import { tableHead, tableRow } from "./report-markdown-table";

const money = (value: number) => `$${value.toLocaleString("en-US", { maximumFractionDigits: 4 })}`;

function budgetLine(report: StudyReport): string[] {
  const budget = report.budget;
  if (!budget || (budget.tokens === null && budget.money === null)) return [];
  const parts = [
    ...(budget.tokens === null ? [] : [`${budget.tokens.toLocaleString("en-US")} tokens`]),
    ...(budget.money === null ? [] : [formatCost(budget.money)]),
  ];
  return ["", `Study budget: ${parts.join(" or ")} over all trials; reaching it stops the queued trials.`];
}

/** Cost in US dollars by the price table in force when the report was made; unknown prices said as such. */
export function costsSection(report: StudyReport): string[] {
  const costs = report.costs;
  if (!costs) return [];
  const labels = new Map(report.configurations.map((configuration) => [configuration.choice, configuration.label]));
  const lines = [
    "## Cost",
    "",
    `Study total: ${formatCost(costs.total)}${costs.unknownModels.length > 0 ? ` (no price for ${costs.unknownModels.map((model) => codeSpan(model)).join(", ")})` : ""}.`,
    ...budgetLine(report),
    "",
    ...tableHead(["#", "configuration", "median per trial", "total"]),
    ...costs.configurations.map((row) =>
      tableRow([
        String(row.choice),
        escapeCell(labels.get(row.choice) ?? row.model),
        formatCost(row.median),
        formatCost(row.total),
      ]),
    ),
  ];
  if (costs.prices.length > 0)
    lines.push(
      "",
      "Prices (US dollars per million tokens: input, cached input, output, reasoning): " +
        costs.prices
          .map(
            (price) =>
              `${escapeInline(price.model)} ${money(price.inputPerMillion)}, ${money(price.cachedInputPerMillion)}, ${money(price.outputPerMillion)}, ${money(price.reasoningPerMillion)}`,
          )
          .join("; ") +
        ".",
    );
  return lines;
}
