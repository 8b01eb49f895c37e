/**
 * Prepared statements on the embedded database (PGlite), the counterpart of the named statements the
 * `pg` pool prepares on a server (client.ts `statement`).
 *
 * `PGlite.query` parses and plans its text on every call (an unnamed statement) and crosses into
 * WebAssembly six times per query (parse, describe the statement, bind, describe the portal, execute,
 * sync). For the hot statements — a few fixed texts with large data-modifying CTEs — that is most of
 * a request's database time. Here each statement is parsed once per PGlite instance under its name
 * (its parameter types read once with it), and every execution is ONE protocol message: bind,
 * describe, execute and sync, sent in one call. PostgreSQL then keeps the statement's plans as it does
 * for a server's prepared statements (re-planned by itself after a schema change).
 *
 * Nothing else changes: the call takes the same two locks `PGlite.query` takes (no statement runs
 * inside another caller's transaction), values are serialised and rows parsed by PGlite's own type
 * handlers, and the data is synced to the file system after the statement as after a `query`.
 *
 * The rows are built here (`rowsOf`), not by PGlite's `parseResults`: given extra parsers, that copies
 * the instance's whole parser table (`{...client.parsers, ...parsers}`, some 320 entries keyed by type
 * OID, which V8 keeps in dictionary mode) on every call — about 0.25 ms of the event loop per statement
 * on this machine, more than PostgreSQL took to execute a session look-up. The table with the extra
 * parsers is merged once per instance instead, and each value goes through the same parser
 * `parseResults` would pick: the extra one, else the instance's, else PGlite's default, else the text.
 */
import { parse, type PGlite, protocol, types } from '@electric-sql/pglite';

type Parser = (value: string, typeId: number) => unknown;
type Parsers = Record<number, (value: string) => unknown>;

/** The messages of a statement's execution, as `execProtocol` returns them. */
type Messages = Awaited<ReturnType<PGlite['execProtocol']>>['messages'];

/**
 * The rows of one statement's messages, as `parseResults(messages, table)[0].rows` gives them (rows as
 * objects keyed by column name, a later column of the same name winning, SQL NULL as null).
 */
function rowsOf(messages: Messages, table: Readonly<Record<number, Parser>>): Record<string, unknown>[] {
  const rows: Record<string, unknown>[] = [];
  let names: string[] = [];
  let parsers: (Parser | undefined)[] = [];
  let typeIds: number[] = [];
  for (const message of messages) {
    if (message.name === 'rowDescription') {
      const { fields } = message as unknown as { fields: { name: string; dataTypeID: number }[] };
      names = fields.map((f) => f.name);
      typeIds = fields.map((f) => f.dataTypeID);
      parsers = typeIds.map((id) => table[id] ?? (types.parsers as Record<number, Parser>)[id]);
    } else if (message.name === 'dataRow') {
      const { fields } = message as unknown as { fields: (string | null)[] };
      const row: Record<string, unknown> = {};
      for (let i = 0; i < fields.length; i++) {
        const value = fields[i];
        const parser = parsers[i];
        row[names[i]!] =
          value === null || value === undefined ? null : parser ? parser(value, typeIds[i]!) : value;
      }
      rows.push(row);
    }
  }
  return rows;
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0;
  for (const part of parts) length += part.length;
  const message = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    message.set(part, offset);
    offset += part.length;
  }
  return message;
}

/** A function that runs named statements on `client` and returns their rows. */
export function pgliteStatements(
  client: PGlite,
  parsers: Parsers,
): (name: string, text: string, params: readonly unknown[]) => Promise<Record<string, unknown>[]> {
  const { serialize } = protocol;
  /** The instance's parsers with the extra ones, merged once (see `rowsOf`). */
  let table: Record<number, Parser> | null = null;
  /** The parameter types of each statement prepared on this instance. */
  const prepared = new Map<string, number[]>();

  const prepare = async (name: string, text: string): Promise<number[]> => {
    const described = await client.execProtocol(
      concat([serialize.parse({ name, text }), serialize.describe({ type: 'S', name }), serialize.sync()]),
      { syncToFs: false },
    );
    const types = parse.parseDescribeStatementResults(described.messages);
    prepared.set(name, types);
    return types;
  };

  return (name, text, params) =>
    client._runExclusiveTransaction(() =>
      client._runExclusiveQuery(async () => {
        await client._checkReady();
        const types = prepared.get(name) ?? (await prepare(name, text));
        const values = params.map((value, i) => {
          if (value === null || value === undefined) return null;
          const serializer = client.serializers[types[i]!];
          return serializer ? serializer(value) : String(value);
        });
        const result = await client.execProtocol(
          concat([
            serialize.bind({ statement: name, values }),
            serialize.describe({ type: 'P' }),
            serialize.execute(),
            serialize.sync(),
          ]),
        );
        table ??= { ...(client.parsers as Record<number, Parser>), ...parsers };
        return rowsOf(result.messages, table);
      }),
    );
}
