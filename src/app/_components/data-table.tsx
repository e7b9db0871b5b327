import type { HTMLAttributes, ReactNode, Ref, TableHTMLAttributes, TdHTMLAttributes, ThHTMLAttributes } from "react";

/**
 * Cell spacing of a table:
 * - `normal`: the default, for tables in a panel;
 * - `dense`: less vertical room (long lists in a scrolling box);
 * - `flush`: no horizontal padding, so the text lines up with the panel's (short fact tables);
 * - `inset`: roomier rows whose first and last columns line up with a bordered box's edge.
 */
export type TableDensity = "normal" | "dense" | "flush" | "inset";

const spacing: Record<TableDensity, { head: string; cell: string; headEdge?: string; cellEdge?: string }> = {
  normal: { head: "px-2 py-2", cell: "px-2 py-2" },
  dense: { head: "px-2 py-1", cell: "px-2 py-1" },
  flush: { head: "py-1", cell: "py-1.5" },
  inset: { head: "px-2 py-2", cell: "px-2 py-2.5", headEdge: "px-4 py-2", cellEdge: "px-4 py-2.5" },
};

/** The padding (and alignment) of one cell, for tables that render their own rows. */
export function cellClass(
  density: TableDensity,
  options: { head?: boolean; numeric?: boolean; edge?: boolean; className?: string } = {},
): string {
  const space = spacing[density];
  const padding = options.head
    ? ((options.edge ? space.headEdge : undefined) ?? space.head)
    : ((options.edge ? space.cellEdge : undefined) ?? space.cell);
  return [padding, options.numeric ? "text-right" : "", options.className ?? ""].filter(Boolean).join(" ");
}

type DataAttributes = Record<`data-${string}`, string | number | undefined>;

export interface TableHeader {
  key: string;
  /** The visible header; `null` leaves the header cell empty. */
  header: ReactNode;
  /** Right-aligned (numbers). */
  numeric?: boolean;
  headerProps?: ThHTMLAttributes<HTMLTableCellElement>;
}

export interface Column<Row> extends TableHeader {
  cell: (row: Row, index: number) => ReactNode;
  /** Extra classes of the column's cells (text size, colour, width), or per row. */
  className?: string | ((row: Row) => string);
  /** Other attributes of a cell (data-testid, title). */
  cellProps?: (row: Row) => TdHTMLAttributes<HTMLTableCellElement> & DataAttributes;
}

export interface TableProps {
  /** The accessible name of the table (tests and screen readers find it by this). */
  label: string;
  density?: TableDensity;
  /** Classes of the <table> element besides `w-full text-left text-sm`. */
  className?: string;
  /** Wraps the table in a div with these classes (e.g. `overflow-x-auto`); no wrapper when undefined. */
  wrapperClassName?: string;
  wrapperProps?: HTMLAttributes<HTMLDivElement> & DataAttributes;
  /** Keep the header row visible while the wrapper scrolls. */
  stickyHeader?: boolean;
  /** No header row (a plain list of facts). */
  headless?: boolean;
  /** The <table> element (a windowed table measures it). */
  tableRef?: Ref<HTMLTableElement>;
  /** Other attributes of the <table> (aria-rowcount of a table that renders only some rows). */
  tableProps?: TableHTMLAttributes<HTMLTableElement>;
}

/**
 * A table with the dashboard's look: uppercase muted headers, rows divided by a line. Renders the
 * header from `headers`; the body is `children` (for tables whose rows are their own components).
 */
export function Table({
  label,
  density = "normal",
  className = "",
  wrapperClassName,
  wrapperProps,
  stickyHeader = false,
  headless = false,
  tableRef,
  tableProps,
  headers,
  children,
}: TableProps & { headers: readonly TableHeader[]; children: ReactNode }) {
  const table = (
    <table {...tableProps} ref={tableRef} className={`w-full text-left text-sm ${className}`.trim()} aria-label={label}>
      {headless ? null : (
        <thead className={`${stickyHeader ? "sticky top-0 bg-panel " : ""}text-xs uppercase text-muted`}>
          <tr>
            {headers.map((column, index) => (
              <th
                key={column.key}
                {...column.headerProps}
                className={cellClass(density, {
                  head: true,
                  numeric: column.numeric,
                  edge: index === 0 || index === headers.length - 1,
                  className: column.headerProps?.className,
                })}
              >
                {column.header}
              </th>
            ))}
          </tr>
        </thead>
      )}
      <tbody>{children}</tbody>
    </table>
  );
  if (wrapperClassName === undefined && !wrapperProps) return table;
  return (
    <div {...wrapperProps} className={wrapperClassName}>
      {table}
    </div>
  );
}

/** A table drawn from column definitions: one row per item of `rows`. */
export function DataTable<Row>({
  columns,
  rows,
  rowKey,
  rowClassName = "border-t border-line",
  rowProps,
  ...table
}: TableProps & {
  columns: readonly Column<Row>[];
  rows: readonly Row[];
  rowKey: (row: Row, index: number) => string;
  rowClassName?: string;
  /** Attributes of a row (data-testid, data-state …). */
  rowProps?: (row: Row) => HTMLAttributes<HTMLTableRowElement> & DataAttributes;
}) {
  const density = table.density ?? "normal";
  return (
    <Table {...table} headers={columns}>
      {rows.map((row, rowIndex) => (
        <tr key={rowKey(row, rowIndex)} className={rowClassName} {...rowProps?.(row)}>
          {columns.map((column, index) => (
            <td
              key={column.key}
              {...column.cellProps?.(row)}
              className={cellClass(density, {
                numeric: column.numeric,
                edge: index === 0 || index === columns.length - 1,
                className: typeof column.className === "function" ? column.className(row) : column.className,
              })}
            >
              {column.cell(row, rowIndex)}
            </td>
          ))}
        </tr>
      ))}
    </Table>
  );
}
