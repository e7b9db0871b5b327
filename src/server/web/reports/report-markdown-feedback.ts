import { commentPlace } from "../../../shared/review-comment-schemas";
import type { ReportTrial } from "../../../shared/study-report";
import { trialName } from "../../../shared/domain-names";
import { NONE, tableHead, tableRow } from "./report-markdown-table";
import { escapeCell, escapeInline } from "./markdown-text";

/**
 * The report's follow-ups (review feedback sent back to the agent) and review comments: each follow-up as
 * "Trial 1.2 → Trial 1.2.1" with both verdicts, then every comment with where it points and which follow-up
 * carried it. Follow-ups are not in the aggregates, which compare first attempts.
 */
function verdictText(trial: ReportTrial | undefined): string {
  const verdict = trial?.verdict;
  if (!verdict) return NONE;
  return verdict.total === null ? (verdict.ok ? "passed" : "failed") : `${verdict.passed ?? 0}/${verdict.total}`;
}

function followUpsSection(trials: readonly ReportTrial[], byId: Map<string, ReportTrial>): string[] {
  const followUps = trials.filter((trial) => trial.parentTrialId);
  if (followUps.length === 0) return [];
  const lines = [
    "## Follow-ups",
    "",
    "Trials continued with review feedback: the agent's conversation resumed in a copy of the trial's workspace, judged by the same tests. They are not counted in the aggregates above.",
    "",
    ...tableHead(["follow-up", "tests passed before", "tests passed after"]),
  ];
  for (const trial of followUps) {
    const parent = byId.get(trial.parentTrialId ?? "");
    const from = parent ? trialName(parent) : `trial ${trial.parentTrialId ?? ""}`;
    lines.push(tableRow([escapeCell(`${from} → ${trialName(trial)}`), verdictText(parent), verdictText(trial)]));
  }
  return lines;
}

function commentsSection(trials: readonly ReportTrial[], byId: Map<string, ReportTrial>): string[] {
  const commented = trials.filter((trial) => (trial.comments ?? []).length > 0);
  if (commented.length === 0) return [];
  const lines = ["## Review comments"];
  for (const trial of commented) {
    lines.push("", `${trialName(trial)}:`, "");
    for (const comment of trial.comments ?? []) {
      const place = commentPlace(comment);
      const sent = comment.sentInTrial ? byId.get(comment.sentInTrial) : undefined;
      const carried = comment.sentInTrial ? ` _(sent in ${sent ? trialName(sent) : comment.sentInTrial})_` : "";
      const text = escapeInline(comment.body);
      lines.push(`- ${place ? `${escapeInline(place)} — ` : ""}${text} — ${escapeInline(comment.author)}${carried}`);
    }
  }
  return lines;
}

export function feedbackSections(trials: readonly ReportTrial[]): string[][] {
  const byId = new Map(trials.map((trial) => [trial.id, trial]));
  return [followUpsSection(trials, byId), commentsSection(trials, byId)];
}
