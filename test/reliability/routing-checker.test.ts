/**
 * The distribution checker itself (test/reliability/routing.ts), on statements written for the
 * purpose: what it accepts, and — for each way a statement or a transaction can leave one
 * organization — that it refuses it.
 */
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/db/client.ts';
import { type RecordedStatement, recordStatements } from '../../src/db/statement-log.ts';
import { openTestDatabase } from '../helpers/app.ts';
import {
  checkStatement,
  checkTransaction,
  loadParser,
  tableKindsFromDocs,
  tableKindsOfRepository,
} from './routing.ts';

const A = '01a2a000-0000-7000-8000-00000000000a';
const B = '01a2b000-0000-7000-8000-00000000000b';
const ID = '01a2c000-0000-7000-8000-00000000000c';
const kinds = tableKindsOfRepository();
const check = (text: string, params: unknown[] = [], callers?: string[]) =>
  checkStatement(text, params, kinds, callers ? { callerOrganizations: new Set(callers) } : {});

beforeAll(() => loadParser());

describe('statements the checker accepts', () => {
  it('an equality on organization_id, also through casts, IN and ANY with one value', () => {
    for (const [text, params] of [
      ['select * from journal_entries where organization_id = $1 and id = $2', [A, ID]],
      ['select * from journal_entries e where e.organization_id = $1::uuid', [A]],
      [`select * from accounts where organization_id = '${A}'`, []],
      ['select * from accounts where organization_id in ($1, $2)', [A, A]],
      ['select * from accounts where organization_id = any($1::uuid[])', [[A]]],
    ] as const) {
      const v = check(text, [...params]);
      expect(v.problems, text).toEqual([]);
      expect([...v.organizations]).toEqual([A.toLowerCase()]);
    }
  });

  it('joins of co-located tables on organization_id, CTEs, subqueries and correlated subqueries', () => {
    const texts = [
      `select * from journal_entries e
       join journal_lines l on l.organization_id = e.organization_id and l.journal_entry_id = e.id
       where e.organization_id = $1`,
      `with open as (select organization_id, id from fiscal_periods where organization_id = $1)
       select * from open o join journal_entries e on e.organization_id = o.organization_id`,
      `select * from (select * from companies where organization_id = $1) c
       join accounts a on a.organization_id = c.organization_id`,
      `select c.id, (select count(*) from accounts a where a.organization_id = c.organization_id)
       from companies c where c.organization_id = $1`,
      `select * from accounts a join users u on u.id = a.id where a.organization_id = $1`,
    ];
    for (const text of texts) expect(check(text, [A]).problems, text).toEqual([]);
  });

  it('writes tied to the organization they write', () => {
    const texts = [
      'insert into audit_log (id, organization_id, action) values ($2, $1, $3), ($4, $1, $3)',
      'update journal_entries set status = $2 where organization_id = $1 and id = $3',
      'delete from exchange_rates where organization_id = $1 and id = $2',
      `with header as (insert into journal_entries (id, organization_id) select id, $1 from unnest($2::uuid[]) as i(id) returning *)
       insert into journal_lines (id, organization_id, journal_entry_id) select $3, h.organization_id, h.id from header h`,
      `insert into entry_counters as ec (organization_id, company_id, last_number) select $1, $2, 1
       on conflict (organization_id, company_id) do update set last_number = ec.last_number + 1`,
    ];
    for (const text of texts) {
      const v = check(text, [A, ID, 'x', ID]);
      expect(v.problems, text).toEqual([]);
      expect(v.writes).toBe(true);
      expect([...v.organizations]).toEqual([A]);
    }
  });

  it('batches of one organization passed as unnest or jsonb_to_recordset parameters', () => {
    const rows = JSON.stringify([
      { organization_id: A, company_id: ID },
      { organization_id: A, company_id: ID },
    ]);
    const v = check(
      `select * from jsonb_to_recordset($1::jsonb) as q(organization_id uuid, company_id uuid)
       join companies c on c.organization_id = q.organization_id and c.id = q.company_id`,
      [rows],
    );
    expect(v.problems).toEqual([]);
    expect([...v.organizations]).toEqual([A]);
    const u = check(
      `select * from unnest($1::uuid[], $2::uuid[]) as q(organization_id, id)
       join accounts a on a.organization_id = q.organization_id and a.id = q.id`,
      [
        [A, A],
        [ID, ID],
      ],
    );
    expect(u.problems).toEqual([]);
  });

  it('reference tables alone, and statements without tables', () => {
    for (const text of [
      'select * from users u join memberships m on m.user_id = u.id where u.email = $1',
      'update sessions set revoked_at = now() where token_hash = $1',
      "select set_config('x', $1, true)",
      'begin',
    ])
      expect(check(text, ['v']).problems, text).toEqual([]);
  });

  it('reports the two documented ways of spanning organizations', () => {
    expect(
      check(
        'select * from journal_entries where organization_id in (select organization_id from memberships where user_id = $1)',
        [ID],
      ).spanning,
    ).toBe('caller-organizations');
    expect(check('select * from accounts where organization_id in ($1, $2)', [A, B], [A, B]).spanning).toBe(
      'caller-organizations',
    );
    expect(check('select organization_id from journal_entries where id = $1', [ID]).spanning).toBe('by-id');
    // Several ids: the access look-ups of concurrent requests combined into one statement.
    const ID2 = '01a2c000-0000-7000-8000-00000000000d';
    for (const [text, params] of [
      ['select organization_id from journal_entries where id = any($1::uuid[])', [[ID, ID2]]],
      ['select organization_id from journal_entries where id in ($1, $2)', [ID, ID2]],
      [
        `select r.ord, e.organization_id from unnest($1::text[], $2::uuid[]) with ordinality as r(token, entry_id, ord)
         left join journal_entries e on e.id = r.entry_id`,
        [
          ['t1', 't2'],
          [ID, ID2],
        ],
      ],
    ] as const) {
      const v = check(text, [...params]);
      expect(v.problems, text).toEqual([]);
      expect(v.spanning, text).toBe('by-id');
    }
    const alternatives = `select * from journal_lines where (organization_id = $1 and journal_entry_id in ($2))
      or (organization_id = $3 and journal_entry_id in ($4))`;
    expect(check(alternatives, [A, ID, B, ID], [A, B]).spanning).toBe('caller-organizations');
    expect(check(alternatives, [A, ID, B, ID], [A]).problems).toEqual([
      `journal_lines journal_lines spans 2 organizations (${A}, ${B})`,
    ]);
  });
});

describe('statements the checker refuses, with the reason', () => {
  it('a join of distributed tables that is not on organization_id', () => {
    const v = check(
      `select * from journal_entries e join journal_lines l on l.journal_entry_id = e.id
       where e.organization_id = $1`,
      [A],
    );
    expect(v.problems).toEqual(['journal_lines l is not restricted to one organization']);
  });

  it('no condition on organization_id, or one that need not hold (OR)', () => {
    expect(check('select * from accounts where account_number = $1', ['1000']).problems).toEqual([
      'accounts accounts is not restricted to one organization',
    ]);
    expect(
      check('select * from accounts where organization_id = $1 or account_number = $2', [A, '1000']).problems,
    ).toHaveLength(1);
  });

  it('two organizations in one statement: IN lists of others, batches, mixed inserts', () => {
    expect(check('select * from accounts where organization_id in ($1, $2)', [A, B], [A]).problems).toEqual([
      `accounts accounts spans 2 organizations (${A}, ${B})`,
    ]);
    const rows = JSON.stringify([{ organization_id: A }, { organization_id: B }]);
    expect(
      check(
        `select * from jsonb_to_recordset($1::jsonb) as q(organization_id uuid)
         join companies c on c.organization_id = q.organization_id`,
        [rows],
        [],
      ).problems,
    ).toHaveLength(1);
    expect(
      check('insert into audit_log (id, organization_id) values ($1, $2), ($3, $4)', [ID, A, ID, B]).problems,
    ).toEqual([`audit_log audit_log spans 2 organizations (${A}, ${B})`]);
    expect(
      check('select * from accounts a, companies c where a.organization_id = $1 and c.organization_id = $2', [
        A,
        B,
      ]).problems,
    ).toEqual([`tied to 2 organizations (${A}, ${B})`]);
  });

  it('writes by id only, and writes spanning the caller organizations', () => {
    expect(check('update journal_entries set status = $1 where id = $2', ['Posted', ID]).problems).toEqual([
      'journal_entries journal_entries is not restricted to one organization',
    ]);
    expect(
      check('update journal_entries set status = $1 where id = any($2::uuid[])', ['Posted', [ID, A]])
        .problems,
    ).toEqual(['journal_entries journal_entries is not restricted to one organization']);
    expect(
      check(
        'delete from exchange_rates where organization_id in (select organization_id from memberships where user_id = $1)',
        [ID],
      ).problems,
    ).toEqual(['writes while reading across organizations (caller-organizations)']);
  });

  it('tables the documentation does not classify, and text that does not parse', () => {
    expect(check('select * from secret_table where organization_id = $1', [A]).problems).toEqual([
      'table secret_table is neither distributed nor a reference table in docs/scaling.md',
    ]);
    expect(check('selec 1').problems[0]).toMatch(/cannot be parsed/);
  });

  it('a transaction that touches two organizations, or reads across them while writing', () => {
    const a = {
      text: 'update accounts …',
      verdict: check('update accounts set name = $2 where organization_id = $1 and id = $3', [A, 'x', ID]),
    };
    const b = {
      text: 'update accounts …',
      verdict: check('update accounts set name = $2 where organization_id = $1 and id = $3', [B, 'x', ID]),
    };
    expect(checkTransaction([a, a])).toEqual([]);
    expect(checkTransaction([a, b])).toEqual([`one transaction touches 2 organizations (${A}, ${B})`]);
    const list = {
      text: 'select …',
      verdict: check('select * from accounts where organization_id in ($1, $2)', [A, B]),
    };
    expect(checkTransaction([list, a])).toHaveLength(1);
    expect(checkTransaction([list])).toEqual([]);
  });
});

describe('the tables of docs/scaling.md', () => {
  it('are read from its two rows', () => {
    const kinds = tableKindsFromDocs(
      [
        '| Kind | Tables | Citus |',
        '| Global, small | `users`, `sessions` | ref |',
        '| Per organization | `companies` | dist |',
      ].join('\n'),
    );
    expect([...kinds.reference]).toEqual(['users', 'sessions']);
    expect([...kinds.distributed]).toEqual(['companies']);
  });
});

describe('statement recording', () => {
  it('numbers the statements of a transaction alike and every other statement apart', async () => {
    const recorded: RecordedStatement[] = [];
    recordStatements((s) => recorded.push(s));
    const { database, cleanup } = await openTestDatabase().finally(() => recordStatements(null));
    try {
      recorded.length = 0;
      await database.db.execute(sql`select 1`);
      await inTransaction(database.db, async (tx) => {
        await tx.execute(sql`select 2`);
        await tx.execute(sql`select 3`);
      });
      await database.db.execute(sql`select 4`);
      const txOf = (text: string) => recorded.find((r) => r.text === text)!.tx;
      expect(txOf('select 2')).toBe(txOf('select 3'));
      expect(new Set([txOf('select 1'), txOf('select 2'), txOf('select 4')]).size).toBe(3);
    } finally {
      await cleanup();
    }
  });
});
