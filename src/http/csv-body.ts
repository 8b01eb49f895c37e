/**
 * CSV request bodies (routes that declare `csvBody` also accept `text/csv`): the file is parsed by a
 * maintained CSV parser into the rows of the route's JSON body, so that one schema validates both.
 * The header row names the columns, matched case-insensitively; a UTF-8 byte-order mark is skipped;
 * the separator is `,` or `;` (the one the header row uses). Columns the route does not know are
 * ignored. Problems are reported with the row (1-based, the header row excluded, 0 for the header
 * itself) and the column.
 */
import { createHash } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import type { DomainError } from '../domain/errors.ts';

export interface CsvRowError {
  row: number;
  column: string;
  message: string;
}

export interface CsvBodyRule {
  /** Lower-case header text → the row field it fills. */
  columns: Record<string, string>;
  /** Row fields every file must have a column for. */
  required: string[];
  /** The error of a file that cannot be read. */
  error(errors: CsvRowError[]): DomainError;
  /** The JSON body built from the rows. */
  body(rows: Record<string, string>[]): Record<string, unknown>;
}

export function isCsvContentType(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(';', 1)[0]!.trim().toLowerCase() === 'text/csv';
}

/** SHA-256 (hex) of the uploaded text. */
export const digestOf = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** The separator the header row uses: `;` when it has more semicolons than commas. */
function delimiterOf(text: string): string {
  const end = text.indexOf('\n');
  const header = end < 0 ? text : text.slice(0, end);
  const count = (c: string) => header.split(c).length - 1;
  return count(';') > count(',') ? ';' : ',';
}

export function parseCsvBody(raw: string, rule: CsvBodyRule): Record<string, unknown> {
  const text = raw.charCodeAt(0) === 0xfeff ? raw.slice(1) : raw;
  const errors: CsvRowError[] = [];
  let header: (string | undefined)[] = [];
  let records: Record<string, string>[];
  try {
    records = parse(text, {
      bom: true,
      delimiter: delimiterOf(text),
      skip_empty_lines: true,
      trim: true,
      columns: (names: string[]) => {
        header = names.map(
          (n) =>
            rule.columns[
              n
                .trim()
                .toLowerCase()
                .replace(/[\s_-]/g, '')
            ],
        );
        // Unknown columns are read under a name no row field has, then dropped.
        return names.map((n, i) => header[i] ?? `__ignored_${i}`);
      },
    }) as Record<string, string>[];
  } catch (err) {
    const e = err as { code?: string; lines?: number; message?: string };
    const line = typeof e.lines === 'number' ? Math.max(e.lines - 1, 0) : 0;
    throw rule.error([{ row: line, column: '', message: e.message ?? 'The file is not valid CSV' }]);
  }
  for (const field of rule.required) {
    if (!header.includes(field)) errors.push({ row: 0, column: field, message: `Missing column ${field}` });
  }
  if (errors.length > 0) throw rule.error(errors);
  const rows = records.map((r) => {
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(r)) if (!k.startsWith('__ignored_')) out[k] = v;
    return out;
  });
  return rule.body(rows);
}
