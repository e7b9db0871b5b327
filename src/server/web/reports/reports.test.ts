import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { studyReportSchema, type StudyReport } from "../../../shared/study-report";
import { AppError } from "../../core/errors/app-error";
import { codeBlock, codeSpan, escapeCell, escapeInline, quoteBlock } from "./markdown-text";
import { CSV_COLUMNS, guardFormula, quoteCsvField, renderCsvReport } from "./report-csv";
import { reportFileName, slugify } from "./report-filename";
import { REPORT_FIXTURE } from "./report-fixture";
import { renderJsonReport } from "./report-json";
import { renderMarkdownReport } from "./report-markdown";
import { REPO_ROOT } from "../../../../test/support/temp";

const DOCS = path.join(REPO_ROOT, "docs", "reports.md");

/** A copy of the fixture with changes, deep enough that the fixture itself is never touched. */
function variant(change: (report: StudyReport) => void): StudyReport {
  const copy = structuredClone(REPORT_FIXTURE);
  change(copy);
  return copy;
}

/** The lines from `first` up to the next blank line. */
function block(text: string, first: string): string[] {
  const lines = text.split("\n");
  const start = lines.indexOf(first);
  expect(start, `no line ${first}`).toBeGreaterThanOrEqual(0);
  const end = lines.indexOf("", start);
  return lines.slice(start, end === -1 ? undefined : end);
}

/** A small RFC 4180 reader, to check that what we write reads back as the same cells. */
function readCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let field = "";
  let quoted = false;
  const endField = () => {
    row.push(field);
    field = "";
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ",") endField();
    else if (char === "\r" && text[i + 1] === "\n") {
      endField();
      rows.push(row);
      row = [];
      i++;
    } else field += char;
  }
  expect(field).toBe("");
  expect(row).toEqual([]);
  return rows;
}

/** Pipes that separate table cells: not escaped by an odd run of backslashes. */
const cellSeparators = (line: string): number => line.replace(/\\\\/g, "").replace(/\\\|/g, "").split("|").length - 1;

function refusal(render: () => string): AppError {
  try {
    render();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return error as AppError;
  }
  throw new Error("The renderer accepted an invalid report.");
}

describe("study report schema and JSON", () => {
  it("accepts the fixture and writes it as pretty JSON that parses back to the same report", () => {
    const json = renderJsonReport(REPORT_FIXTURE);
    expect(
      json.startsWith(
        '{\n  "schema": "invariant-web/study-report",\n  "version": 2,\n  "generatedAt": "2025-03-01T15:00:00.000Z",\n',
      ),
    ).toBe(true);
    expect(json.endsWith("}\n")).toBe(true);
    expect(json.endsWith("\n\n")).toBe(false);
    const parsed: unknown = JSON.parse(json);
    expect(studyReportSchema.parse(parsed)).toEqual(REPORT_FIXTURE);
    expect(renderJsonReport(studyReportSchema.parse(parsed))).toBe(json);
  });

  it("keeps the tricky text byte for byte", () => {
    const parsed = studyReportSchema.parse(JSON.parse(renderJsonReport(REPORT_FIXTURE)));
    expect(parsed.study.title).toBe("Fix the | parser <script>alert(1)</script> — naïve café ✓");
    expect(parsed.trials[3]?.error).toBe("Container exited 137, \"OOM\"\n<script>alert('x')</script> | see logs");
    expect(parsed.configurations[2]?.model).toBe("=cmd|' /C calc'!A0");
  });

  it("drops fields it does not know, as a version 1 reader of a later additive change", () => {
    const extended = { ...REPORT_FIXTURE, addedLater: true, study: { ...REPORT_FIXTURE.study, addedLater: "x" } };
    const json = renderJsonReport(extended);
    expect(json).not.toContain("addedLater");
    expect(JSON.parse(json)).toEqual(REPORT_FIXTURE);
  });

  it("refuses an invalid report with every problem named, the zod error as cause, in all three formats", () => {
    const invalid = variant((report) => {
      (report as { version: number }).version = 1;
      report.trials[0]!.tokens.total = 5;
      report.trials[1]!.state = "done" as StudyReport["trials"][number]["state"];
      report.study.createdAt = "yesterday";
    });
    for (const render of [renderJsonReport, renderCsvReport, renderMarkdownReport]) {
      const error = refusal(() => render(invalid));
      expect(error.code).toBe("INTERNAL_SERVER_ERROR");
      expect(error.cause).toBeInstanceOf(z.ZodError);
      expect(error.message).toContain("does not match the report schema (version 2)");
      expect(error.message).toContain("→ at version");
      expect(error.message).toContain("tokens.total must equal input + output");
      expect(error.message).toContain("→ at trials[0].tokens.total");
      expect(error.message).toContain("→ at trials[1].state");
      expect(error.message).toContain("Expected an ISO 8601 date-time");
      expect(error.message).toContain("→ at study.createdAt");
    }
  });

  it("refuses trials and aggregates of a configuration that is not there, and a choice listed twice", () => {
    const error = refusal(() =>
      renderJsonReport(
        variant((report) => {
          report.trials[0]!.choice = 9;
          report.aggregates[0]!.choice = 8;
          report.configurations[2]!.choice = 2;
        }),
      ),
    );
    expect(error.message).toContain("Choice 2 appears twice.\n  → at configurations[2].choice");
    expect(error.message).toContain(
      "Trial trial-1 names choice 9, which is not a configuration of this study.\n  → at trials[0].choice",
    );
    expect(error.message).toContain("→ at aggregates[0].choice");
  });

  it("refuses a report that is not an object at all", () => {
    expect(refusal(() => renderJsonReport(null as unknown as StudyReport)).message).toContain("expected object");
  });
});

describe("CSV", () => {
  const csv = renderCsvReport(REPORT_FIXTURE);

  it("writes a header and one CRLF-terminated row per trial, quoting and guarding text cells", () => {
    expect(csv.endsWith("\r\n")).toBe(true);
    expect(csv.slice(0, -2).split("\r\n")).toEqual([
      "study_id,choice,repeat,attempt,configuration,harness,model,reasoning_effort,state,outcome,verdict,tests_passed,tests_failed,tests_skipped,tests_total,verdict_source,agent_seconds,eval_seconds,input_tokens,cached_input_tokens,output_tokens,reasoning_tokens,total_tokens,thread_id,error,chosen,chosen_note,captured_changed,tests_missing,cost_usd,test_config_changed,trial,parent_trial_id",
      "cm7study0001,1,1,1,gpt-5-codex · high,codex,gpt-5-codex,high,succeeded,completed,all-passed,23,0,0,23,node-test,312.46,41.2,120000,80000,9000,4000,129000,thr_01,,0,,,0,,,1.1,",
      "cm7study0001,2,1,1,o4-mini <b> · medium,codex,o4-mini <b>,medium,succeeded,completed,all-passed,23,0,0,23,node-test,200.04,39.9,50000,10000,5000,2000,55000,thr_02,,0,,,0,,,2.1,",
      "cm7study0001,2,2,1,o4-mini <b> · medium,codex,o4-mini <b>,medium,failed,agent-failed,partial,21,2,0,23,node-test,250,40.5,60000,30000,7000,3500,67000,thr_03,,0,,,0,,,2.2,",
      'cm7study0001,2,3,2,o4-mini <b> · medium,codex,o4-mini <b>,medium,error,error,,,,,,,,,0,0,0,0,0,,"Container exited 137, ""OOM""\n<script>alert(\'x\')</script> | see logs",0,,,,,,2.3,',
      'cm7study0001,3,1,1,\'=fix | fast,command,\'=cmd|\' /C calc\'!A0,minimal,succeeded,completed,all-passed,,,,,exit-code,5.04,38,0,0,0,0,0,"\'=HYPERLINK(""http://x.example"",""y"")",,0,,,,,,3.1,',
    ]);
  });

  it("reads back, with an RFC 4180 reader, as the same cells (formula cells with their guard)", () => {
    const rows = readCsv(csv);
    expect(rows[0]).toEqual([...CSV_COLUMNS]);
    expect(rows.slice(1).every((row) => row.length === CSV_COLUMNS.length)).toBe(true);
    expect(rows[4]?.[CSV_COLUMNS.indexOf("error")]).toBe(REPORT_FIXTURE.trials[3]?.error);
    expect(rows[5]?.[CSV_COLUMNS.indexOf("model")]).toBe("'=cmd|' /C calc'!A0");
    expect(rows[5]?.[CSV_COLUMNS.indexOf("configuration")]).toBe("'=fix | fast");
    expect(rows[5]?.[CSV_COLUMNS.indexOf("thread_id")]).toBe('\'=HYPERLINK("http://x.example","y")');
  });

  it("orders rows by choice, repeat and attempt whatever order the report lists them in", () => {
    const shuffled = variant((report) => report.trials.reverse());
    expect(renderCsvReport(shuffled)).toBe(csv);
  });

  it("guards text that a spreadsheet would run, and only at the start", () => {
    for (const text of ["=1+1", "+1", "-1", "@SUM(A1)", "\tx", "\rx", "＝1"])
      expect(guardFormula(text)).toBe(`'${text}`);
    for (const text of ["a=b", "", "gpt-5", "'quoted"]) expect(guardFormula(text)).toBe(text);
  });

  it("quotes fields with quotes, commas, CR or LF, and nothing else", () => {
    expect(quoteCsvField('say "hi"')).toBe('"say ""hi"""');
    expect(quoteCsvField("a,b")).toBe('"a,b"');
    expect(quoteCsvField("a\nb")).toBe('"a\nb"');
    expect(quoteCsvField("a\rb")).toBe('"a\rb"');
    expect(quoteCsvField("naïve café ✓ 'x'")).toBe("naïve café ✓ 'x'");
  });
});

describe("Markdown", () => {
  const markdown = renderMarkdownReport(REPORT_FIXTURE);

  it("opens with the escaped title and a line of id, project, state and dates", () => {
    const lines = markdown.split("\n");
    expect(lines[0]).toBe("# Fix the \\| parser &lt;script&gt;alert(1)&lt;/script&gt; — naïve café ✓");
    expect(lines[2]).toBe(
      "Study `cm7study0001` of project demo \\*app\\* · state: done · created 2025-03-01 14:00 UTC · started 2025-03-01 14:05 UTC · finished 2025-03-01 14:17 UTC",
    );
  });

  it("quotes the task line by line, with nothing in it becoming a heading, list or HTML", () => {
    expect(block(markdown, "> Make the parser accept \\`a\\|b\\` tokens.")).toEqual([
      "> Make the parser accept \\`a\\|b\\` tokens.",
      ">",
      "> \\# Not a heading\\",
      "> \\- not a list\\",
      "> &lt;script&gt;alert('task')&lt;/script&gt;\\",
      "> &nbsp;&nbsp;&nbsp;&nbsp;indented line\\",
      "> Done when \\`npm test\\` passes.",
    ]);
  });

  it("puts the test command in a fence longer than any backtick run in it", () => {
    expect(block(markdown, "````sh")).toEqual(["````sh", "npm test -- --test-reporter=spec ```", "````"]);
  });

  it("records the environment, image, snapshot and baseline", () => {
    expect(block(markdown, "- Environment: v3 (`cm7envver03`)")).toEqual([
      "- Environment: v3 (`cm7envver03`)",
      `- Image: \`3f9c2a7b1d04\`, digest \`sha256:${"9d".repeat(32)}\``,
      `- Snapshot: \`${"5a".repeat(32)}\``,
      "- Baseline: 0/23 passed (node-test)",
      "- Limits: 2 at a time, agent timeout 1800 s, evaluation timeout 600 s, token budget 250,000 tokens per trial",
    ]);
  });

  it("writes one results row per trial: the run's outcome apart from its verdict, pass/fail for exit codes, a dash for nothing", () => {
    const head = "| trial | configuration | outcome | tests passed | verdict | agent seconds | tokens |";
    expect(block(markdown, head)).toEqual([
      head,
      "| --- | --- | --- | --- | --- | --- | --- |",
      "| 1.1 | gpt-5-codex · high | completed | 23/23 | all passed | 312.5 | 129,000 |",
      "| 2.1 | o4-mini &lt;b&gt; · medium | completed | 23/23 | all passed | 200.0 | 55,000 |",
      "| 2.2 | o4-mini &lt;b&gt; · medium | agent failed | 21/23 | partial | 250.0 | 67,000 |",
      "| 2.3 (attempt 2) | o4-mini &lt;b&gt; · medium | error | — | no verdict | — | — |",
      "| 3.1 | =fix \\| fast | completed | pass | all passed | 5.0 | 0 |",
    ]);
    expect(markdown).not.toContain("succeeded");
  });

  it("says a completed run that passed no test is completed with none passed, and lists earlier attempts", () => {
    const zero = renderMarkdownReport(
      variant((report) => {
        report.trials[0]!.verdict = { passed: 0, failed: 23, skipped: 0, total: 23, source: "node-test", ok: false };
        report.trials[0]!.outcome = "completed";
      }),
    );
    expect(zero).toContain("| 1.1 | gpt-5-codex · high | completed | 0/23 | none passed | 312.5 | 129,000 |");
    expect(
      block(
        markdown,
        "- Trial 2.3, attempt 1 (configuration 2: o4-mini &lt;b&gt;, effort medium): timed out, 0/23 tests passed (none passed), 1800.0 agent seconds, 101,000 tokens; Stopped after 1800 s: the agent time limit.",
      ),
    ).toEqual([
      "- Trial 2.3, attempt 1 (configuration 2: o4-mini &lt;b&gt;, effort medium): timed out, 0/23 tests passed (none passed), 1800.0 agent seconds, 101,000 tokens; Stopped after 1800 s: the agent time limit.",
    ]);
  });

  it("adds the per-configuration table when a configuration ran more than once", () => {
    expect(
      block(
        markdown,
        "| # | configuration | finished | pass rate (95 % CI) | mean tests passed (95 % CI) | median tests passed | median agent seconds | agent seconds min–max | median tokens | tokens min–max |",
      ),
    ).toEqual([
      "| # | configuration | finished | pass rate (95 % CI) | mean tests passed (95 % CI) | median tests passed | median agent seconds | agent seconds min–max | median tokens | tokens min–max |",
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      "| 1 | gpt-5-codex · high | 1/1 | 100% (1/1; 21–100) | 100% | 23 | 312.5 | 312.5–312.5 | 129,000 | 129,000–129,000 |",
      "| 2 | o4-mini &lt;b&gt; · medium | 3/3 | 33% (1/3; 6–79) | 96% (40–100) | 22 | 225.0 | 200.0–250.0 | 61,000 | 55,000–67,000 |",
      "| 3 | =fix \\| fast | 1/1 | 100% (1/1; 21–100) | — | — | 5.0 | 5.0–5.0 | 0 | 0–0 |",
    ]);
    expect(markdown).toContain("A few repeats show some of the spread");
    // the section: its heading, the method, then one sentence per pair
    const comparisons = markdown.split("\n## Comparisons\n\n")[1]?.split("\n\n");
    expect(comparisons?.[0]).toContain("Newcombe hybrid score interval (method 10); Fisher's exact test");
    expect(comparisons?.[1]?.split("\n")).toEqual([
      "- Configuration 1 (gpt-5-codex · high) and Configuration 2 (o4-mini &lt;b&gt; · medium) cannot be compared with a single finished repeat (1/1 vs 1/3): to tell 33 % from 95 % apart takes about 9 repeats per configuration (α 0.05, power 0.8).",
      "- Configuration 1 (gpt-5-codex · high) and Configuration 3 (=fix \\| fast) cannot be compared with a single finished repeat (1/1 vs 1/1): to tell 50 % from 80 % apart takes about 39 repeats per configuration (α 0.05, power 0.8).",
      "- Configuration 2 (o4-mini &lt;b&gt; · medium) and Configuration 3 (=fix \\| fast) cannot be compared with a single finished repeat (1/3 vs 1/1): to tell 33 % from 95 % apart takes about 9 repeats per configuration (α 0.05, power 0.8).",
    ]);
  });

  it("leaves the per-configuration table out when every configuration ran once, and says so in the note", () => {
    const single = renderMarkdownReport(
      variant((report) => {
        report.trials = report.trials.filter((trial) => trial.repeat === 1);
        report.configurations[1]!.repeats = 1;
      }),
    );
    expect(single).not.toContain("## Per configuration");
    expect(single).toContain(
      "Each configuration ran once, so every row is a single run: this is not a ranking of models or harnesses",
    );
    expect(single.endsWith("can give different results._\n")).toBe(true);
  });

  it("lists trial errors on one escaped line each", () => {
    expect(block(markdown, "## Errors")).toEqual(["## Errors"]);
    expect(markdown).toContain(
      "\n- Trial 2.3 (attempt 2): Container exited 137, \"OOM\" &lt;script&gt;alert('x')&lt;/script&gt; \\| see logs\n",
    );
  });

  it("lets no user text add a table cell or raw HTML", () => {
    expect(markdown).not.toContain("<");
    const tables = markdown
      .split("\n\n")
      .filter((chunk) => chunk.startsWith("| "))
      .map((chunk) => chunk.split("\n"));
    expect(tables).toHaveLength(2);
    for (const [head, ...rows] of tables) {
      const columns = head!.split(" | ").length;
      for (const row of rows) expect(cellSeparators(row), row).toBe(columns + 1);
    }
  });

  it("says what was not recorded instead of leaving gaps", () => {
    const bare = renderMarkdownReport(
      variant((report) => {
        report.environment = { versionId: null, version: null, imageId: null, imageDigest: null };
        report.snapshotId = null;
        report.baseline = null;
        report.study.startedAt = null;
        report.study.finishedAt = null;
        report.study.title = "  ";
        report.trials = [];
      }),
    );
    expect(bare.split("\n")[0]).toBe("# Untitled study");
    expect(bare).toContain("· started — · finished —");
    expect(bare).toContain(
      "- Environment: not recorded\n- Image: not recorded\n- Snapshot: not recorded\n- Baseline: not recorded\n",
    );
    expect(bare).toContain("_No trials were recorded._");
  });

  it("shows a verdict with no total as its passed count, and a baseline without counts by its source", () => {
    const partial = renderMarkdownReport(
      variant((report) => {
        report.trials[0]!.verdict = {
          passed: 7,
          failed: null,
          skipped: null,
          total: null,
          source: "summary-line",
          ok: true,
        };
        report.baseline = { passed: null, failed: null, skipped: null, total: null, source: "exit-code" };
      }),
    );
    expect(partial).toContain("| 1.1 | gpt-5-codex · high | completed | 7 | all passed | 312.5 | 129,000 |");
    expect(partial).toContain("- Baseline: no test counts (exit-code)");
  });

  it("names each configuration's agent with the versions its trials ran, and an effort only where the CLI takes one", () => {
    const mixed = structuredClone(REPORT_FIXTURE);
    const [first, second] = mixed.configurations;
    if (!first || !second) throw new Error("the fixture has two agent configurations");
    Object.assign(first, { harness: "claude-code", model: "claude-sonnet-4-5", reasoningEffort: "xhigh" });
    Object.assign(second, { harness: "gemini-cli", model: "gemini-2.5-pro" });
    for (const trial of mixed.trials)
      if (trial.choice === first.choice) trial.harnessVersion = "2.1.332";
      else if (trial.choice === second.choice) trial.harnessVersion = trial.harnessVersion ? "0.61.0" : null;
    const lines = renderMarkdownReport(mixed).split("\n");
    expect(lines.find((line) => line.startsWith("- Configuration 1 "))).toMatch(
      /: Claude Code \(2\.1\.332\), model claude-sonnet-4-5, effort xhigh, 1 repeat;/,
    );
    expect(lines.find((line) => line.startsWith("- Configuration 2 "))).toMatch(
      /: Gemini CLI \(0\.61\.0\), model gemini-2\.5-pro, 3 repeats$/,
    );
  });

  it("is the example in docs/reports.md", () => {
    expect(fs.readFileSync(DOCS, "utf8")).toContain(`\n\`\`\`\`\`markdown\n${markdown}\`\`\`\`\`\n`);
  });
});

describe("Markdown text", () => {
  it("escapes inline syntax, HTML and line breaks", () => {
    expect(escapeInline("a|b *c* _d_ [e](f) `g` ~h~ $i$ \\ <j> & k\r\nl")).toBe(
      "a\\|b \\*c\\* \\_d\\_ \\[e\\](f) \\`g\\` \\~h\\~ \\$i\\$ \\\\ &lt;j&gt; &amp; k l",
    );
    expect(escapeCell(null)).toBe("—");
    expect(escapeCell(" ")).toBe("—");
  });

  it("quotes blocks, escaping block markers at the start of a line only", () => {
    expect(quoteBlock("1. one\n2) two\n\n> q\n=== \n+ plus - minus\n")).toBe(
      "> 1\\. one\\\n> 2\\) two\n>\n> &gt; q\\\n> \\===\\\n> \\+ plus - minus",
    );
  });

  it("makes code spans and blocks that no backtick run can close early", () => {
    expect(codeSpan("plain")).toBe("`plain`");
    expect(codeSpan("a `b` c")).toBe("``a `b` c``");
    expect(codeSpan("`x`")).toBe("`` `x` ``");
    expect(codeSpan("")).toBe("—");
    expect(codeBlock({ text: "echo ``` done\r\n", language: "sh" })).toBe("````sh\necho ``` done\n````");
  });
});

describe("report file names", () => {
  it("is study-<slug>-<id>.<format>, safe characters only", () => {
    expect(reportFileName({ report: REPORT_FIXTURE, format: "md" })).toBe(
      "study-fix-the-parser-script-alert-1-script-naive-cafe-cm7study0001.md",
    );
    expect(reportFileName({ report: { study: { id: "c1", title: "../../etc/passwd" } }, format: "csv" })).toBe(
      "study-etc-passwd-c1.csv",
    );
    expect(reportFileName({ report: { study: { id: "../x y", title: "✓✓" } }, format: "json" })).toBe("study-x-y.json");
    expect(reportFileName({ report: { study: { id: "///", title: "" } }, format: "json" })).toBe("study-unknown.json");
  });

  it("keeps slugs short and without a trailing hyphen", () => {
    const slug = slugify(`${"word ".repeat(20)}end`);
    expect(slug.length).toBeLessThanOrEqual(48);
    expect(slug.endsWith("-")).toBe(false);
    expect(slugify("Ünïcödé   Tïtle!!")).toBe("unicode-title");
  });
});

describe("the chosen result in reports", () => {
  const chosenTrial = REPORT_FIXTURE.trials[1]!;
  const withChoice = variant((report) => {
    report.chosen = {
      trialId: chosenTrial.id,
      note: "Smallest diff | kept\nsecond line",
      by: "admin",
      at: "2025-03-02T09:30:00.000Z",
    };
  });

  it("is an optional field of the JSON report, and must name one of its trials", () => {
    const parsed = studyReportSchema.parse(JSON.parse(renderJsonReport(withChoice)));
    expect(parsed.chosen).toEqual(withChoice.chosen);
    expect(studyReportSchema.parse(REPORT_FIXTURE).chosen).toBeUndefined(); // reports written before it still parse
    expect(studyReportSchema.parse({ ...REPORT_FIXTURE, chosen: null }).chosen).toBeNull();
    const stray = variant((report) => {
      report.chosen = { trialId: "not-a-trial", note: null, by: "admin", at: "2025-03-02T09:30:00.000Z" };
    });
    expect(refusal(() => renderJsonReport(stray)).message).toContain("chosen.trialId");
  });

  it("marks the chosen trial's CSV row and carries the note", () => {
    const rows = readCsv(renderCsvReport(withChoice));
    const chosenColumn = CSV_COLUMNS.indexOf("chosen");
    const byId = rows.slice(1).filter((row) => row[chosenColumn] === "1");
    expect(byId).toHaveLength(1);
    expect(byId[0]?.[CSV_COLUMNS.indexOf("thread_id")]).toBe(chosenTrial.threadId ?? "");
    expect(byId[0]?.[CSV_COLUMNS.indexOf("chosen_note")]).toBe("Smallest diff | kept\nsecond line");
    expect(rows.slice(1).filter((row) => row[chosenColumn] === "0")).toHaveLength(rows.length - 2);
  });

  it("has its own Markdown section with who chose it, when, and the note", () => {
    const markdown = renderMarkdownReport(withChoice);
    expect(block(markdown, "## Chosen result")).toEqual(["## Chosen result"]);
    expect(markdown.indexOf("## Chosen result")).toBeGreaterThan(markdown.indexOf("## Results"));
    expect(markdown).toContain(`Trial 2.1 (id \`${chosenTrial.id}\`)`);
    expect(markdown).toContain("chosen by admin on 2025-03-02 09:30 UTC.");
    expect(markdown).toContain("> Smallest diff \\| kept\\\n> second line");
    expect(renderMarkdownReport(REPORT_FIXTURE)).not.toContain("## Chosen result");
  });
});
