"use client";
import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useEffect, useState, type ChangeEvent } from "react";
import { MAX_TEST_FILE_BYTES, MAX_TEST_UPLOAD_TOTAL_BYTES } from "../../../shared/study-inputs";
import type { ProjectFileView } from "../../../shared/study-schemas";
import { FieldError, focusRing, smallButtonClass as smallButton } from "../../_components/ui";
import { describeError } from "../../_lib/errors";
import { formatBytes } from "../../_lib/format";
import { useTRPC } from "../../_lib/trpc";
import { describedBy, fieldInputClass } from "../../_components/form-field";
import { addAllMatches } from "./add-all-matches";
import { ChosenTestFiles } from "./chosen-test-files";
import { fieldId, newKey, toBase64, type FieldErrors, type TestFileDraft } from "./form-model";

function useDebounced<T>(value: T, ms: number): T {
  const [debounced, setDebounced] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setDebounced(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return debounced;
}

type FilesChange = (update: (files: TestFileDraft[]) => TestFileDraft[]) => void;

/** One click for every match (add-all-matches.ts). */
function AddAllMatchesButton({
  query,
  result,
  files,
  stale,
  onChange,
}: {
  query: string;
  result: { files: ProjectFileView[]; total: number };
  files: TestFileDraft[];
  /** The result is still the previous query's (a new search is on its way). */
  stale: boolean;
  onChange: FilesChange;
}) {
  const add = addAllMatches({ query, result, chosen: files });
  if (!add) return null;
  return (
    <>
      <button
        type="button"
        className={smallButton}
        disabled={add.disabled || stale}
        onClick={() => onChange((current) => [...current, ...add.drafts])}
      >
        {add.label}
      </button>
      {add.hint ? <span className="text-xs text-muted">{add.hint}</span> : null}
    </>
  );
}

/** Files of the project that match the filter, as buttons that add them (greyed once chosen). */
function SearchResults({
  projectId,
  query,
  files,
  onChange,
}: {
  projectId: string;
  query: string;
  files: TestFileDraft[];
  onChange: FilesChange;
}) {
  const trpc = useTRPC();
  const debounced = useDebounced(query, 250);
  const search = useQuery(
    trpc.studies.projectFiles.queryOptions(
      { projectId, query: debounced },
      { enabled: projectId !== "", placeholderData: keepPreviousData, staleTime: 10_000 },
    ),
  );
  const chosen = new Set(files.map((file) => file.path));
  return (
    <div aria-label="Search results" role="group">
      {search.error ? <p className="text-sm text-danger">{describeError(search.error).message}</p> : null}
      {search.data ? (
        <>
          <ul className="flex max-h-48 flex-wrap gap-1.5 overflow-y-auto" aria-busy={search.isFetching}>
            {search.data.files.map((file) => (
              <li key={file.path} className="min-w-0 max-w-full">
                <button
                  type="button"
                  aria-label={`Add ${file.path}`}
                  className={`${smallButton} max-w-full break-all text-left font-mono`}
                  disabled={chosen.has(file.path)}
                  onClick={() =>
                    onChange((current) => [
                      ...current,
                      { key: newKey(), source: "project", path: file.path, bytes: file.bytes },
                    ])
                  }
                >
                  + {file.path}
                </button>
              </li>
            ))}
          </ul>
          <div className="mt-1 flex flex-wrap items-center gap-2">
            <AddAllMatchesButton
              query={debounced}
              result={search.data}
              files={files}
              stale={search.isPlaceholderData}
              onChange={onChange}
            />
            <p className="text-xs text-muted" aria-live="polite">
              {search.data.total === 0
                ? "No files match."
                : search.data.total > search.data.files.length
                  ? `Showing ${search.data.files.length} of ${search.data.total} files; type more to narrow.`
                  : `${search.data.total} file${search.data.total === 1 ? "" : "s"}.`}
            </p>
          </div>
        </>
      ) : search.isFetching ? (
        <p className="text-xs text-muted">Searching the project…</p>
      ) : null}
    </div>
  );
}

/** Which picked files fit: each under the per-file limit, and all uploads together under the total. */
function fittingUploads(picked: File[], alreadyBytes: number): { fit: File[]; problems: string[] } {
  const tooBig = picked.filter((file) => file.size > MAX_TEST_FILE_BYTES);
  const fit: File[] = [];
  const overTotal: File[] = [];
  let total = alreadyBytes;
  for (const file of picked.filter((candidate) => candidate.size <= MAX_TEST_FILE_BYTES)) {
    if (total + file.size > MAX_TEST_UPLOAD_TOTAL_BYTES) overTotal.push(file);
    else {
      fit.push(file);
      total += file.size;
    }
  }
  const problems = [
    tooBig.length > 0
      ? `Too large (a test file is at most ${formatBytes(MAX_TEST_FILE_BYTES)}): ${tooBig.map((file) => file.name).join(", ")}`
      : null,
    overTotal.length > 0
      ? `Not added (uploads together are at most ${formatBytes(MAX_TEST_UPLOAD_TOTAL_BYTES)}; take big files from the project instead): ${overTotal.map((file) => file.name).join(", ")}`
      : null,
  ].filter((problem): problem is string => problem !== null);
  return { fit, problems };
}

/** Reads picked files as uploads (base64); files over a size limit are named in an error instead. */
function useUpload(onChange: FilesChange, files: TestFileDraft[]) {
  const [uploadError, setUploadError] = useState<string | null>(null);
  async function upload(event: ChangeEvent<HTMLInputElement>) {
    const input = event.currentTarget;
    const already = files.reduce((sum, file) => sum + (file.source === "upload" ? (file.bytes ?? 0) : 0), 0);
    const { fit, problems } = fittingUploads([...(input.files ?? [])], already);
    setUploadError(problems.length > 0 ? problems.join(". ") : null);
    const read = await Promise.all(
      fit.map(async (file): Promise<TestFileDraft> => ({
        key: newKey(),
        source: "upload",
        path: file.name,
        fileName: file.name,
        bytes: file.size,
        contentBase64: toBase64(new Uint8Array(await file.arrayBuffer())),
      })),
    );
    input.value = ""; // the same file can be chosen again
    onChange((current) => [...current, ...read]);
  }
  return { upload, uploadError };
}

/**
 * Fixed test files: found in the project tree by a text filter, or uploaded. They are restored
 * byte-for-byte before every evaluation, so an agent cannot weaken them.
 */
export function TestFilesPicker({
  projectId,
  files,
  errors,
  onChange,
}: {
  projectId: string;
  files: TestFileDraft[];
  errors: FieldErrors;
  onChange: FilesChange;
}) {
  const [query, setQuery] = useState("");
  const { upload, uploadError } = useUpload(onChange, files);
  const searchId = fieldId("testFiles");
  const listError = errors.testFiles;

  return (
    <div className="grid gap-3">
      <div className="grid gap-3 md:grid-cols-2">
        <div>
          <label htmlFor={searchId} className="mb-1 block text-sm text-muted">
            Find test files
          </label>
          <input
            id={searchId}
            type="search"
            className={fieldInputClass}
            placeholder={projectId ? "e.g. .test.js, test/ or tests/**/*.py" : "Choose a project first"}
            disabled={projectId === ""}
            value={query}
            onChange={(e) => setQuery(e.target.value)}
            autoComplete="off"
            {...describedBy(searchId, { error: listError })}
          />
        </div>
        <div>
          <label htmlFor="study-test-upload" className="mb-1 block text-sm text-muted">
            Upload test files
          </label>
          <input
            id="study-test-upload"
            type="file"
            multiple
            className={`block w-full text-sm text-muted file:mr-3 file:rounded-md file:border file:border-line file:bg-transparent file:px-3 file:py-1.5 file:text-ink ${focusRing}`}
            onChange={(e) => void upload(e)}
          />
          <FieldError id="study-test-upload-error" message={uploadError} />
        </div>
      </div>
      {projectId ? <SearchResults projectId={projectId} query={query} files={files} onChange={onChange} /> : null}
      <ChosenTestFiles files={files} errors={errors} onChange={onChange} />
    </div>
  );
}
