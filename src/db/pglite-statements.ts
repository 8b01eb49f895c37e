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
 */
import { parse, type PGlite, protocol } from '@electric-sql/pglite';

type Parsers = Record<number, (value: string) => unknown>;

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
        return parse.parseResults(result.messages, client.parsers, { parsers })[0]?.rows as Record<
          string,
          unknown
        >[];
      }),
    );
}
