import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { UsageError } from "./usage-error";
import { readStudyFile } from "./study-file";
import { CliInputError } from "./workflow-cli";

const dir = fs.mkdtempSync(path.join(os.tmpdir(), "iw-study-file-"));
function file(name: string, text: string): string {
  const at = path.join(dir, name);
  fs.writeFileSync(at, text);
  return at;
}

const JSON_STUDY = {
  project: "calendar",
  title: "Calendar",
  taskPrompt: "Implement src/calendar.js.",
  testCommand: "node --test",
  testFiles: [{ source: "project", path: "test/calendar.test.js" }],
  configurations: [{ model: "gpt-5", reasoningEffort: "high", repeats: 2 }],
};

const YAML_STUDY = `# the same study in YAML
project: calendar
title: Calendar
taskPrompt: Implement src/calendar.js.
testCommand: node --test
testFiles:
  - source: project
    path: test/calendar.test.js
configurations:
  - model: gpt-5
    reasoningEffort: high
    repeats: 2
`;

function inputError(run: () => unknown): CliInputError {
  try {
    run();
  } catch (error) {
    if (error instanceof CliInputError) return error;
    throw error;
  }
  throw new Error("expected a CliInputError");
}

describe("study files for invariant-web study create", () => {
  it("reads JSON and YAML into the form's input, with the form's defaults", () => {
    const fromJson = readStudyFile({ file: file("study.json", JSON.stringify(JSON_STUDY)) });
    const fromYaml = readStudyFile({ file: file("study.yaml", YAML_STUDY) });
    expect(fromYaml).toEqual(fromJson);
    expect(fromJson.projectRef).toBe("calendar");
    expect(fromJson.input).toMatchObject({
      projectId: "calendar",
      agentTimeoutSec: 1800,
      evalTimeoutSec: 600,
      junitPath: null,
      configurations: [{ harness: "codex", model: "gpt-5", reasoningEffort: "high", repeats: 2, overrides: [] }],
    });
  });

  it("takes whole test folders and globs (expanded by the server when the study is created)", () => {
    const folders = `${YAML_STUDY.replace("    path: test/calendar.test.js\n", "    path: test/\n  - source: project\n    path: tests/**/*.py\n")}`;
    const { input } = readStudyFile({ file: file("folders.yaml", folders) });
    expect(input.testFiles).toEqual([
      { source: "project", path: "test/", role: "test" },
      { source: "project", path: "tests/**/*.py", role: "test" },
    ]);
    const bad = inputError(() =>
      readStudyFile({
        file: file(
          "bad-folders.json",
          JSON.stringify({
            ...JSON_STUDY,
            testFiles: [
              { source: "project", path: "../shared/" },
              { source: "project", path: ".git/" },
              { source: "project", path: "test//" },
              { source: "upload", path: "test/", contentBase64: "" },
            ],
          }),
        ),
      }),
    );
    expect(bad.fieldErrors["testFiles.0.path"]?.[0]).toMatch(/\.\. segments/);
    expect(bad.fieldErrors["testFiles.1.path"]?.[0]).toMatch(/\.git/);
    expect(bad.fieldErrors["testFiles.2.path"]?.[0]).toMatch(/empty/);
    expect(bad.fieldErrors["testFiles.3.path"]?.[0]).toMatch(/empty/);
  });

  it("lets --project win over the file's project", () => {
    const read = readStudyFile({ file: file("p.json", JSON.stringify(JSON_STUDY)), projectId: "cm-id" });
    expect(read.input.projectId).toBe("cm-id");
  });

  it("names every field that is wrong", () => {
    const bad = { ...JSON_STUDY, testCommand: " ", configurations: [{ harness: "codex", model: "", repeats: 21 }] };
    const error = inputError(() => readStudyFile({ file: file("bad.json", JSON.stringify(bad)) }));
    expect(error.fieldErrors).toEqual({
      testCommand: ["Enter the Linux command that runs the tests, for example npm test."],
      "configurations.0.repeats": ["At most 20 repeats."],
      "configurations.0.model": ["Name the model this configuration uses."],
    });
    const yaml = inputError(() =>
      readStudyFile({ file: file("bad.yml", YAML_STUDY.replace("repeats: 2", "repeats: two")) }),
    );
    expect(Object.keys(yaml.fieldErrors)).toEqual(["configurations.0.repeats"]);
  });

  it("takes a configuration's label, empty when not given, and refuses one over 60 characters", () => {
    const labelled = {
      ...JSON_STUDY,
      configurations: [
        { harness: "command", command: "./agent.sh --fast", label: "  fast agent ", repeats: 1 },
        { model: "gpt-5", repeats: 1 },
      ],
    };
    const read = readStudyFile({ file: file("label.json", JSON.stringify(labelled)) });
    expect(read.input.configurations.map((c) => c.label)).toEqual(["fast agent", ""]);
    const long = { ...JSON_STUDY, configurations: [{ model: "gpt-5", repeats: 1, label: "x".repeat(61) }] };
    const error = inputError(() => readStudyFile({ file: file("long.json", JSON.stringify(long)) }));
    expect(error.fieldErrors).toEqual({ "configurations.0.label": ["A label is at most 60 characters."] });
  });

  it("names fields the form does not have instead of dropping them", () => {
    const typo = {
      ...JSON_STUDY,
      concurency: 2,
      configurations: [{ model: "gpt-5", effort: "high", repeats: 1 }],
      testFiles: [{ source: "project", path: "test/calendar.test.js", roles: "test" }],
    };
    const error = inputError(() => readStudyFile({ file: file("typo.json", JSON.stringify(typo)) }));
    expect(Object.keys(error.fieldErrors)).toEqual(["concurency", "configurations.0.effort", "testFiles.0.roles"]);
    expect(error.fieldErrors.concurency?.[0]).toMatch(/^Unknown field\. The fields here are: projectId, title, /);
  });

  it("says how to name the project when neither the file nor the command line does", () => {
    const { project: _project, ...rest } = JSON_STUDY;
    const error = inputError(() => readStudyFile({ file: file("np.json", JSON.stringify(rest)) }));
    expect(error.fieldErrors.projectId?.[0]).toContain("--project P / --last");
  });

  it("refuses what is not a study: bad syntax, a list, a file that cannot be read", () => {
    expect(inputError(() => readStudyFile({ file: file("s.json", "{ title: ") })).message).toContain(
      "is not valid JSON",
    );
    expect(inputError(() => readStudyFile({ file: file("s.yaml", "a: [") })).message).toContain("is not valid YAML");
    expect(inputError(() => readStudyFile({ file: file("l.json", "[]") })).message).toContain("must hold one object");
    expect(() => readStudyFile({ file: path.join(dir, "missing.json") })).toThrow(UsageError);
  });
});
