import { ResourceTemplate, type McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { ErrorCode, McpError } from "@modelcontextprotocol/sdk/types.js";
import { classifyError } from "../../../shared/automation-errors";
import type { McpBackend } from "./mcp-backend";

/** The newest studies listed as resources (any study's report can be read by its URI). */
const LISTED_STUDIES = 200;

const MIME = { md: "text/markdown", json: "application/json" } as const;

export const reportUri = (studyId: string, format: "md" | "json") =>
  `invariant://studies/${encodeURIComponent(studyId)}/report.${format}`;

/**
 * Study reports as resources: `invariant://studies/{studyId}/report.md` and `.json`, the same reports as
 * the dashboard's downloads and `invariant-web study export` (docs/reports.md).
 */
export function registerStudyResources(mcp: McpServer, backend: McpBackend): void {
  const template = new ResourceTemplate("invariant://studies/{studyId}/report.{format}", {
    list: async () => {
      const studies = (await backend.api.studies.list.query({})).slice(0, LISTED_STUDIES);
      return {
        resources: studies.flatMap((study) =>
          (["md", "json"] as const).map((format) => ({
            uri: reportUri(study.id, format),
            name: `${study.title} (${format === "md" ? "Markdown" : "JSON"} report)`,
            mimeType: MIME[format],
          })),
        ),
      };
    },
    complete: { format: () => ["md", "json"] },
  });
  mcp.registerResource(
    "study-report",
    template,
    {
      title: "Study report",
      description: "A study's report: configurations, verdicts, pass rates with intervals, costs, flipping tests.",
    },
    async (uri, variables) => {
      const format = String(variables.format);
      const studyId = decodeURIComponent(String(variables.studyId));
      if (format !== "md" && format !== "json")
        throw new McpError(ErrorCode.InvalidParams, `A report is report.md or report.json, not report.${format}.`);
      try {
        const text = await backend.report({ studyId, format });
        return { contents: [{ uri: uri.href, mimeType: MIME[format], text }] };
      } catch (error) {
        const problem = classifyError(error);
        throw new McpError(
          ErrorCode.InvalidParams,
          `${problem.kind}${problem.code ? ` (${problem.code})` : ""}: ${problem.message}`,
        );
      }
    },
  );
}
