"use client";
import { describedBy, fieldInputClass } from "../../_components/form-field";
import { FieldError, smallButtonClass as smallButton } from "../../_components/ui";
import { suggestedRole } from "../../../shared/captured-files";
import { formatBytes } from "../../_lib/format";
import { fieldId, type FieldErrors, type TestFileDraft } from "./form-model";

/** Test or runner config: both are restored; the role says which is which in the study and its reports. */
function RoleSelect({
  file,
  onChange,
}: {
  file: TestFileDraft;
  onChange: (update: (files: TestFileDraft[]) => TestFileDraft[]) => void;
}) {
  return (
    <select
      aria-label={`Role of ${file.path || "the uploaded file"}`}
      title="Runner config (package.json, pytest.ini, conftest.py, …) is restored like the tests"
      className={`${fieldInputClass} px-2 py-1 text-xs`}
      value={file.role ?? suggestedRole(file.path)}
      onChange={(e) => {
        const role = e.target.value === "config" ? "config" : "test";
        onChange((current) => current.map((item) => (item.key === file.key ? { ...item, role } : item)));
      }}
      data-testid="test-file-role"
    >
      <option value="test">test</option>
      <option value="config">runner config</option>
    </select>
  );
}

/** The chosen test files: uploads keep an editable path in the project; each can be removed. */
export function ChosenTestFiles({
  files,
  errors,
  onChange,
}: {
  files: TestFileDraft[];
  errors: FieldErrors;
  onChange: (update: (files: TestFileDraft[]) => TestFileDraft[]) => void;
}) {
  const searchId = fieldId("testFiles");
  const listError = errors.testFiles;
  return (
    <div>
      <h3 className="mb-1 text-sm text-muted">Chosen test files ({files.length})</h3>
      <p className="mb-1 text-xs text-muted">
        Every chosen file is restored byte for byte before each evaluation. Add the runner&apos;s configuration too
        (package.json, vitest.config.*, pytest.ini, conftest.py) so an agent cannot change how the tests run.
      </p>
      {files.length === 0 ? (
        <p className="text-xs text-muted">
          None: the test command runs against the files as they are in the snapshot. Adding them freezes them.
        </p>
      ) : null}
      <ul className="grid gap-1.5" aria-label="Chosen test files">
        {files.map((file, index) => {
          const pathKey = `testFiles.${index}.path`;
          const pathId = fieldId(pathKey);
          const error = errors[pathKey] ?? errors[`testFiles.${index}.contentBase64`] ?? errors[`testFiles.${index}`];
          return (
            <li key={file.key} className="rounded-md border border-line px-3 py-2" data-testid="chosen-test-file">
              {/* wraps at phone width: the path takes a line of its own before the role, size and Remove */}
              <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
                <span className="w-16 shrink-0 text-xs uppercase text-muted">
                  {file.source === "upload" ? "upload" : "project"}
                </span>
                {file.source === "upload" ? (
                  <input
                    id={pathId}
                    aria-label={`Path of uploaded ${file.fileName ?? file.path}`}
                    className={`${fieldInputClass} min-w-0 flex-1 basis-48 px-2 py-1 font-mono`}
                    value={file.path}
                    onChange={(e) =>
                      onChange((current) =>
                        current.map((item) => (item.key === file.key ? { ...item, path: e.target.value } : item)),
                      )
                    }
                    {...describedBy(pathId, { error })}
                  />
                ) : (
                  <span className="min-w-0 flex-1 basis-48 break-all font-mono text-sm">{file.path}</span>
                )}
                <RoleSelect file={file} onChange={onChange} />
                <span className="text-xs text-muted">
                  {file.matches === undefined ? "" : `${file.matches} file${file.matches === 1 ? "" : "s"}, `}
                  {file.bytes === undefined ? "" : formatBytes(file.bytes)}
                </span>
                <button
                  type="button"
                  id={file.source === "project" ? pathId : undefined}
                  className={smallButton}
                  aria-label={`Remove ${file.path}`}
                  onClick={() => onChange((current) => current.filter((item) => item.key !== file.key))}
                >
                  Remove
                </button>
              </div>
              <FieldError id={`${pathId}-error`} message={error} />
            </li>
          );
        })}
      </ul>
      <FieldError id={`${searchId}-error`} message={listError} />
    </div>
  );
}
