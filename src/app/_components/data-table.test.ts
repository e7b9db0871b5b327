import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { describe, expect, it } from "vitest";
import { cellClass, DataTable, type Column } from "./data-table";
import { QueryState } from "./query-state";

interface Row {
  id: string;
  name: string;
  bytes: number;
}

const columns: Column<Row>[] = [
  { key: "name", header: "Name", className: "font-mono", cell: (row) => row.name },
  {
    key: "bytes",
    header: "Bytes",
    numeric: true,
    cellProps: (row) => ({ "data-testid": `bytes-${row.id}` }),
    cell: (row) => row.bytes,
  },
];
const rows: Row[] = [
  { id: "a", name: "a.txt", bytes: 1 },
  { id: "b", name: "b.txt", bytes: 22 },
];

describe("DataTable", () => {
  it("names the table, draws a header per column and a row per item with the column's classes", () => {
    const html = renderToStaticMarkup(
      createElement(DataTable<Row>, {
        label: "Files",
        columns,
        rows,
        rowKey: (row) => row.id,
        rowProps: (row) => ({ "data-testid": "file-row", "data-id": row.id }),
      }),
    );
    expect(html).toContain('<table class="w-full text-left text-sm" aria-label="Files">');
    expect(html).toContain('<th class="px-2 py-2 text-right">Bytes</th>');
    expect(html.match(/data-testid="file-row"/g)).toHaveLength(2);
    expect(html).toContain('<td class="px-2 py-2 font-mono">a.txt</td>');
    expect(html).toContain('<td data-testid="bytes-b" class="px-2 py-2 text-right">22</td>');
  });

  it("wraps the table only when asked, and can leave out the header", () => {
    const html = renderToStaticMarkup(
      createElement(DataTable<Row>, {
        label: "Files",
        columns,
        rows,
        rowKey: (row) => row.id,
        headless: true,
        wrapperClassName: "overflow-x-auto",
      }),
    );
    expect(html.startsWith('<div class="overflow-x-auto"><table')).toBe(true);
    expect(html).not.toContain("<thead");
  });

  it("insets the first and last columns of an inset table", () => {
    expect(cellClass("inset", { edge: true })).toBe("px-4 py-2.5");
    expect(cellClass("inset", { head: true })).toBe("px-2 py-2");
    expect(cellClass("flush", { numeric: true, className: "text-xs" })).toBe("py-1.5 text-right text-xs");
  });
});

describe("QueryState", () => {
  const render = (query: { data: string[] | undefined; error: unknown; isPending: boolean }) =>
    renderToStaticMarkup(
      createElement(QueryState<string[]>, {
        query,
        loading: "Loading things…",
        errorPrefix: "Could not load things",
        isEmpty: (list) => list.length === 0,
        empty: "Nothing yet",
        children: (list) => list.join(", "),
      }),
    );

  it("shows loading, then the error, the empty state or the data", () => {
    expect(render({ data: undefined, error: null, isPending: true })).toBe('<p class="text-muted">Loading things…</p>');
    expect(render({ data: undefined, error: new Error("boom"), isPending: false })).toBe(
      '<p role="alert" class="text-danger">Could not load things: boom</p>',
    );
    expect(render({ data: [], error: null, isPending: false })).toBe("Nothing yet");
    expect(render({ data: ["a", "b"], error: null, isPending: false })).toBe("a, b");
  });

  it("keeps the data a failed refetch left, below the error", () => {
    expect(render({ data: ["a"], error: new Error("offline"), isPending: false })).toBe(
      '<p role="alert" class="text-danger">Could not load things: offline</p>a',
    );
  });
});
