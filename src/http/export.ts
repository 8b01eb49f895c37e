/**
 * CSV and spreadsheet (XLSX) answers of the report and list endpoints.
 *
 * The format is chosen by `?format=csv|xlsx|json` when given, else by the `Accept` header (`text/csv`,
 * the XLSX media type; anything else answers JSON as before). CSV files have a header row and the
 * amounts as the same decimal strings as the JSON answer. Spreadsheets have a frozen header row,
 * amounts as numeric cells formatted to the currency's minor units, bold section headers, and
 * subtotal and total rows set off by borders. The file name of `Content-Disposition` names the
 * company or group, the report and its date.
 *
 * Long exports (the journal lines) are streamed: rows are read page by page and written as they come,
 * so memory does not grow with the number of rows.
 */
import { PassThrough, Readable } from 'node:stream';
import { stringify } from 'csv-stringify';
import { stringify as stringifySync } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { minorUnits } from '../domain/codes.ts';
import type { RowStyle, Table, TableColumn, TableRow } from '../domain/reports/tabular.ts';
import { StringEnum, Type } from './schemas.ts';

export const CSV_TYPE = 'text/csv';
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';
export const EXPORT_FORMATS = ['json', 'csv', 'xlsx'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** The `format` query parameter of a report that answers JSON or a file. */
export const FormatQuery = Type.Optional(
  StringEnum(EXPORT_FORMATS, {
    description:
      'Answer format: `json` (default), `csv` or `xlsx`; without it the Accept header chooses ' +
      '(`text/csv`, `application/vnd.openxmlformats-officedocument.spreadsheetml.sheet`).',
  }),
);

/** The answer's format: the `format` parameter, else the first export type the Accept header names. */
export function exportFormat(request: FastifyRequest, format: string | undefined): ExportFormat {
  if (format === 'csv' || format === 'xlsx' || format === 'json') return format;
  const accept = String(request.headers.accept ?? '').toLowerCase();
  let best: { format: ExportFormat; at: number } | null = null;
  for (const [type, f] of [
    [CSV_TYPE, 'csv'],
    [XLSX_TYPE, 'xlsx'],
  ] as const) {
    const at = accept.indexOf(type);
    if (at >= 0 && (best === null || at < best.at)) best = { format: f, at };
  }
  if (best === null) return 'json';
  const json = accept.indexOf('application/json');
  return json >= 0 && json < best.at ? 'json' : best.format;
}

/** A file-name part: letters, digits, `-` and `_` only. */
function slug(part: string): string {
  return (
    part
      .normalize('NFKD')
      .replace(/[^\w-]+/g, '-')
      .replace(/-+/g, '-')
      .replace(/^-|-$/g, '')
      .slice(0, 60) || 'export'
  );
}

/** `Acme-Ltd_balance-sheet_2026-12-31.xlsx`. */
export function fileName(parts: string[], format: 'csv' | 'xlsx'): string {
  return `${parts.map(slug).join('_')}.${format}`;
}

function setFileHeaders(reply: FastifyReply, format: 'csv' | 'xlsx', name: string) {
  reply.header('content-type', format === 'csv' ? `${CSV_TYPE}; charset=utf-8` : XLSX_TYPE);
  reply.header('content-disposition', `attachment; filename="${name}"`);
}

// ---------------------------------------------------------------------------------------------------
// Whole tables

const withRowType = (table: Table): { columns: TableColumn[]; rows: (string | number | null)[][] } => ({
  columns: [...table.columns, { header: 'Row type', kind: 'text', width: 10 }],
  rows: table.rows.map((r) => [...r.cells, r.style]),
});

/** Sends a report as a CSV or XLSX file (`parts` name it). */
export async function sendTable(
  reply: FastifyReply,
  format: 'csv' | 'xlsx',
  table: Table,
  parts: string[],
): Promise<FastifyReply> {
  const name = fileName(parts, format);
  setFileHeaders(reply, format, name);
  if (format === 'csv') {
    const { columns, rows } = withRowType(table);
    return reply.send(stringifySync([columns.map((c) => c.header), ...rows.map(csvCells)]));
  }
  const workbook = new ExcelJS.Workbook();
  workbook.title = table.title;
  const sheet = workbook.addWorksheet(sheetName(table.title), { views: [{ state: 'frozen', ySplit: 1 }] });
  const { columns } = withRowType(table);
  writeHeader(sheet, columns);
  const styles = table.rows.map((r) => r.style);
  table.rows.forEach((r, i) =>
    writeRow(sheet, columns, [...r.cells, r.style], table.currency, r, styles[i]!),
  );
  return reply.send(Buffer.from(await workbook.xlsx.writeBuffer()));
}

const csvCells = (cells: (string | number | null)[]) => cells.map((c) => (c === null ? '' : String(c)));

function sheetName(title: string): string {
  return title.replace(/[[\]:*?/\\]/g, ' ').slice(0, 31) || 'Sheet1';
}

/** The spreadsheet number format of amounts with `digits` fraction digits. */
export function amountFormat(digits: number): string {
  const pattern = digits > 0 ? `#,##0.${'0'.repeat(digits)}` : '#,##0';
  return `${pattern};-${pattern}`;
}

function safeMinorUnits(currency: string | null | undefined): number {
  try {
    return currency ? minorUnits(currency) : 2;
  } catch {
    return 2;
  }
}

type Sheet = ExcelJS.Worksheet;

function writeHeader(sheet: Sheet, columns: TableColumn[]) {
  sheet.columns = columns.map((c) => ({ header: c.header, width: c.width ?? 14 }));
  const header = sheet.getRow(1);
  header.font = { bold: true };
  header.fill = { type: 'pattern', pattern: 'solid', fgColor: { argb: 'FFE8EDF3' } };
  header.border = { bottom: { style: 'thin' } };
}

/** Adds one data row; amount cells become numbers formatted to their currency's minor units. */
function writeRow(
  sheet: Sheet,
  columns: TableColumn[],
  cells: (string | number | null)[],
  currency: string,
  source: Pick<TableRow, 'indent'> | null,
  style: RowStyle | null,
) {
  const values = cells.map((c, i) => {
    if (c === null || c === '') return null;
    const kind = columns[i]?.kind;
    if (kind === 'amount' || kind === 'integer') return Number(c);
    return c;
  });
  const row = sheet.addRow(values);
  columns.forEach((col, i) => {
    if (col.kind !== 'amount' || values[i] === null) return;
    const cur = col.currencyColumn !== undefined ? String(cells[col.currencyColumn] ?? '') : currency;
    row.getCell(i + 1).numFmt = amountFormat(safeMinorUnits(cur));
  });
  if (source?.indent) row.getCell(2).alignment = { indent: source.indent };
  if (style === 'Header') row.font = { bold: true };
  if (style === 'Subtotal') {
    row.font = { bold: true };
    columns.forEach((col, i) => {
      if (col.kind === 'amount') row.getCell(i + 1).border = { top: { style: 'thin' } };
    });
  }
  if (style === 'Total') {
    row.font = { bold: true };
    columns.forEach((col, i) => {
      if (col.kind === 'amount') {
        row.getCell(i + 1).border = { top: { style: 'thin' }, bottom: { style: 'double' } };
      }
    });
  }
  return row;
}

// ---------------------------------------------------------------------------------------------------
// Streamed rows

/**
 * Streams rows (read lazily from `rows`) as a CSV or XLSX file. CSV rows go straight to the
 * response; the spreadsheet is written by the streaming writer of the XLSX library, each row
 * committed as soon as it is added.
 */
export function sendRowStream(
  reply: FastifyReply,
  format: 'csv' | 'xlsx',
  title: string,
  columns: TableColumn[],
  rows: AsyncIterable<(string | number | null)[]>,
  parts: string[],
): FastifyReply {
  setFileHeaders(reply, format, fileName(parts, format));
  if (format === 'csv') {
    const source = Readable.from(
      (async function* () {
        yield columns.map((c) => c.header);
        for await (const r of rows) yield csvCells(r);
      })(),
    );
    const csv = stringify();
    source.on('error', (err) => csv.destroy(err));
    return reply.send(source.pipe(csv));
  }
  const out = new PassThrough();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true });
  void (async () => {
    try {
      const sheet = workbook.addWorksheet(sheetName(title), { views: [{ state: 'frozen', ySplit: 1 }] });
      writeHeader(sheet, columns);
      sheet.getRow(1).commit();
      for await (const r of rows) writeRow(sheet, columns, r, '', null, null).commit();
      sheet.commit();
      await workbook.commit();
    } catch (err) {
      out.destroy(err as Error);
    }
  })();
  return reply.send(out);
}
