/**
 * The distribution check (docs/scaling.md, "Citus: distributing by organization"): whether a SQL
 * statement of the service can be routed to the one organization whose rows it touches, and which
 * organizations a transaction touches. Statements are parsed with PostgreSQL's own parser
 * (libpg-query) and their parameters are read, so the check sees the organization ids each one was
 * sent with.
 *
 * Rule for a statement: every occurrence of a distributed table is tied to one organization —
 *   - `organization_id` equal to a parameter or a constant (`=`, `IN (…)`, `= ANY(…)` with one
 *     distinct value), in a condition that must hold (WHERE, JOIN … ON, joined by AND);
 *   - or equal, the same way, to the `organization_id` of another occurrence that is tied (a join of
 *     co-located tables), of a CTE or subquery output, or of a parameter set (`unnest`,
 *     `jsonb_to_recordset`) whose values are one organization;
 *   - for INSERT, the `organization_id` column inserted is such a value.
 * Reference tables (users, organizations, memberships, sessions, idempotency keys) are replicated to
 * every node: any access to them is fine. Two kinds of statements legitimately span organizations;
 * they are reads, reported as such, and docs/scaling.md says how Citus runs them:
 *   - `caller-organizations`: the lists that span the caller's own organizations, as
 *     `organization_id IN (SELECT organization_id FROM memberships …)` or as a list of ids that are all
 *     organizations of the caller (when the check is told them);
 *   - `by-id`: an occurrence tied to no organization but to rows named by their `id` (the look-ups by
 *     id that find the organization of a resource named without one) — one id, or a list of them
 *     (`= ANY`, `IN`, a join on an `unnest` of ids: the look-ups of several requests combined).
 * Rule for a transaction: all its statements that are tied to organizations are tied to the same one,
 * and it contains no spanning statement unless it writes nothing.
 */
import { readFileSync } from 'node:fs';
import { loadModule, parseSync } from 'libpg-query';

// ---------------------------------------------------------------------------------------------------
// Tables, as docs/scaling.md lists them

export interface TableKinds {
  distributed: Set<string>;
  reference: Set<string>;
}

/** The two rows of the table of docs/scaling.md: "Global, small" and "Per organization". */
export function tableKindsFromDocs(markdown: string): TableKinds {
  const row = (label: string) => {
    const line = markdown.split('\n').find((l) => l.startsWith(`| ${label}`));
    if (!line) throw new Error(`docs/scaling.md has no "${label}" row`);
    return new Set([...line.split('|')[2]!.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]!));
  };
  return { reference: row('Global, small'), distributed: row('Per organization') };
}

export function tableKindsOfRepository(): TableKinds {
  return tableKindsFromDocs(readFileSync(new URL('../../docs/scaling.md', import.meta.url), 'utf8'));
}

// ---------------------------------------------------------------------------------------------------
// Verdicts

export type Spanning = 'caller-organizations' | 'by-id';

export interface StatementVerdict {
  /** Organizations the statement is tied to (ids as sent). */
  organizations: Set<string>;
  /** Set when the statement reads across organizations in one of the two allowed ways. */
  spanning: Spanning | null;
  /** Whether the statement may write (INSERT, UPDATE, DELETE, also inside a CTE). */
  writes: boolean;
  /** Why it cannot be routed to one organization (empty when it can). */
  problems: string[];
}

let loaded: Promise<void> | null = null;
/** Loads the parser (WebAssembly) once; call before `checkStatement`. */
export function loadParser(): Promise<void> {
  loaded ??= loadModule();
  return loaded;
}

type Node = any;

const parsed = new Map<string, Node[] | Error>();

function parse(text: string): Node[] {
  let tree = parsed.get(text);
  if (!tree) {
    try {
      tree = (parseSync(text) as { stmts: Array<{ stmt: Node }> }).stmts.map((s) => s.stmt);
    } catch (err) {
      tree = err as Error;
    }
    parsed.set(text, tree);
  }
  if (tree instanceof Error) throw tree;
  return tree;
}

export interface CheckOptions {
  /**
   * The organizations of the user the statement was sent for: a read of several organizations, all
   * of them the caller's, is a `caller-organizations` list. Without it every such read is one.
   */
  callerOrganizations?: ReadonlySet<string>;
}

/** Checks one statement as sent with its parameters. */
export function checkStatement(
  text: string,
  params: readonly unknown[],
  kinds: TableKinds,
  options: CheckOptions = {},
): StatementVerdict {
  let statements: Node[];
  try {
    statements = parse(text);
  } catch (err) {
    return {
      organizations: new Set(),
      spanning: null,
      writes: false,
      problems: [`cannot be parsed: ${(err as Error).message}`],
    };
  }
  const analysis = new Analysis(params, kinds);
  for (const stmt of statements) analysis.statement(stmt, null);
  return analysis.verdict(options);
}

export interface TransactionStatement {
  text: string;
  verdict: StatementVerdict;
}

/** Problems of one transaction: statements tied to different organizations, spanning reads in writes. */
export function checkTransaction(statements: TransactionStatement[]): string[] {
  const organizations = new Set<string>();
  for (const s of statements) for (const o of s.verdict.organizations) organizations.add(o);
  const problems: string[] = [];
  if (organizations.size > 1)
    problems.push(
      `one transaction touches ${organizations.size} organizations (${[...organizations].sort().join(', ')})`,
    );
  if (statements.length > 1 && statements.some((s) => s.verdict.writes)) {
    for (const s of statements.filter((x) => x.verdict.spanning))
      problems.push(
        `a transaction that writes also reads across organizations (${s.verdict.spanning}): ${s.text}`,
      );
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------
// Analysis: union-find over `organization_id` (and `id`) values of the statement's row sources

interface Occurrence {
  table: string;
  alias: string;
  org: string;
  id: string;
}

/** A row source of a FROM list (or the target of INSERT/UPDATE/DELETE), by its alias. */
interface Source {
  alias: string;
  /** Column name → node, for the columns the check follows (`organization_id`, `id`, outputs). */
  columns: Map<string, string>;
  /** A distributed-table occurrence, or a reference or other table (anything of its columns is fine). */
  occurrence?: Occurrence;
  table?: string;
}

interface Scope {
  parent: Scope | null;
  sources: Source[];
  ctes: Map<string, Map<string, string>>;
}

/**
 * Schemas that stay on the coordinator: the system catalogs and the migrator's history (`drizzle`),
 * which only the migrations read and write.
 */
const LOCAL_SCHEMAS = new Set(['pg_catalog', 'information_schema', 'drizzle']);

class Analysis {
  private readonly parent = new Map<string, string>();
  private readonly values = new Map<string, Set<string>>();
  private readonly spans = new Set<string>();
  private readonly occurrences: Occurrence[] = [];
  private readonly problems: string[] = [];
  private writes = false;
  private next = 0;

  constructor(
    private readonly params: readonly unknown[],
    private readonly kinds: TableKinds,
  ) {}

  // -- union-find

  private fresh(prefix: string): string {
    const key = `${prefix}#${++this.next}`;
    this.parent.set(key, key);
    return key;
  }

  private find(key: string): string {
    let k = key;
    while (this.parent.get(k) !== k) k = this.parent.get(k)!;
    this.parent.set(key, k);
    return k;
  }

  private union(a: string, b: string): void {
    const [ra, rb] = [this.find(a), this.find(b)];
    if (ra === rb) return;
    this.parent.set(ra, rb);
    for (const v of this.values.get(ra) ?? []) this.addValue(rb, v);
    if (this.spans.has(ra)) this.spans.add(rb);
  }

  private addValue(key: string, value: string): void {
    const root = this.find(key);
    let set = this.values.get(root);
    if (!set) this.values.set(root, (set = new Set()));
    set.add(value.toLowerCase());
  }

  private valueNode(values: Iterable<unknown>): string {
    const key = this.fresh('value');
    for (const v of values) if (v !== null && v !== undefined) this.addValue(key, String(v));
    return key;
  }

  // -- parameters

  private param(n: number): unknown {
    return this.params[n - 1];
  }

  /** Elements of an array parameter (or a Postgres array literal). */
  private arrayParam(n: number): unknown[] {
    const v = this.param(n);
    if (Array.isArray(v)) return v;
    if (typeof v === 'string' && v.startsWith('{') && v.endsWith('}'))
      return v
        .slice(1, -1)
        .split(',')
        .filter(Boolean)
        .map((s) => s.replace(/^"|"$/g, ''));
    return [v];
  }

  /** Rows of a JSON parameter (an array of objects). */
  private jsonRows(n: number): Array<Record<string, unknown>> {
    const v = this.param(n);
    try {
      const rows = typeof v === 'string' ? JSON.parse(v) : v;
      return Array.isArray(rows) ? rows : [];
    } catch {
      return [];
    }
  }

  // -- statements

  statement(node: Node, parent: Scope | null): Map<string, string> {
    if (node.SelectStmt) return this.select(node.SelectStmt, parent);
    if (node.InsertStmt) return this.insert(node.InsertStmt, parent);
    if (node.UpdateStmt) return this.update(node.UpdateStmt, parent);
    if (node.DeleteStmt) return this.delete(node.DeleteStmt, parent);
    if (node.MergeStmt) this.problems.push('MERGE is not analysed');
    return new Map();
  }

  private withClause(clause: Node, scope: Scope): void {
    for (const cte of clause?.ctes ?? []) {
      const c = cte.CommonTableExpr;
      const query = c.ctequery;
      if (c.cterecursive !== undefined || clause.recursive) {
        // A recursive CTE sees itself: analyse its first branch, then the whole with itself known.
        const first = query.SelectStmt?.larg ? { SelectStmt: query.SelectStmt.larg } : query;
        scope.ctes.set(c.ctename, this.renamed(this.statement(first, scope), c.aliascolnames));
      }
      scope.ctes.set(c.ctename, this.renamed(this.statement(query, scope), c.aliascolnames));
    }
  }

  /** Outputs renamed by a column list (`cut(day) as (…)`), by position. */
  private renamed(outputs: Map<string, string>, names: Node[] | undefined): Map<string, string> {
    if (!names?.length) return outputs;
    const entries = [...outputs.entries()];
    const result = new Map<string, string>();
    names.forEach((n, i) => {
      const entry = entries[i];
      if (entry) result.set(n.String.sval, entry[1]);
    });
    return result;
  }

  private select(s: Node, parent: Scope | null): Map<string, string> {
    const scope: Scope = { parent, sources: [], ctes: new Map() };
    this.withClause(s.withClause, scope);
    if (s.op && s.op !== 'SETOP_NONE') {
      const left = this.select(s.larg, scope);
      const right = this.select(s.rarg, scope);
      // The outputs of a UNION come from both branches: same position, same node.
      const l = [...left.entries()];
      const r = [...right.entries()];
      l.forEach(([, node], i) => r[i] && this.union(node, r[i][1]));
      return left;
    }
    if (s.valuesLists) {
      const out = new Map<string, string>();
      s.valuesLists.forEach((row: Node) =>
        row.List.items.forEach((expr: Node, i: number) => {
          const term = this.term(expr, scope);
          const key = `column${i + 1}`;
          if (!term) return;
          if (out.has(key)) this.union(out.get(key)!, term);
          else out.set(key, term);
        }),
      );
      return out;
    }
    for (const item of s.fromClause ?? []) this.from(item, scope);
    this.conditions(s.whereClause, scope);
    this.expressions([s.havingClause, s.targetList, s.sortClause, s.groupClause], scope);
    return this.outputs(s.targetList, scope);
  }

  private insert(s: Node, parent: Scope | null): Map<string, string> {
    this.writes = true;
    const scope: Scope = { parent, sources: [], ctes: new Map() };
    this.withClause(s.withClause, scope);
    const target = this.table(s.relation, scope);
    const columns: string[] = (s.cols ?? []).map((c: Node) => c.ResTarget.name);
    const position = columns.indexOf('organization_id');
    if (s.selectStmt) {
      const select = s.selectStmt.SelectStmt;
      if (select?.valuesLists) {
        for (const row of select.valuesLists) {
          const expr = row.List.items[position];
          this.expressions([row.List.items], scope);
          this.tie(target, expr ? this.term(expr, scope) : null);
        }
      } else {
        const outputs = [...this.statement(s.selectStmt, scope).entries()];
        this.tie(target, position >= 0 ? (outputs[position]?.[1] ?? null) : null);
      }
    } else if (target.occurrence) {
      this.problems.push(`INSERT INTO ${target.table} without values`);
    }
    this.expressions([s.onConflictClause?.targetList, s.onConflictClause?.whereClause], scope);
    return this.outputs(s.returningClause?.exprs ?? s.returningList, scope);
  }

  /** The inserted `organization_id` of a distributed table: tied to what it is given. */
  private tie(target: Source, term: string | null): void {
    if (!target.occurrence) return;
    if (term) this.union(target.occurrence.org, term);
  }

  private update(s: Node, parent: Scope | null): Map<string, string> {
    this.writes = true;
    const scope: Scope = { parent, sources: [], ctes: new Map() };
    this.withClause(s.withClause, scope);
    this.table(s.relation, scope);
    for (const item of s.fromClause ?? []) this.from(item, scope);
    this.conditions(s.whereClause, scope);
    this.expressions([s.targetList], scope);
    return this.outputs(s.returningClause?.exprs ?? s.returningList, scope);
  }

  private delete(s: Node, parent: Scope | null): Map<string, string> {
    this.writes = true;
    const scope: Scope = { parent, sources: [], ctes: new Map() };
    this.withClause(s.withClause, scope);
    this.table(s.relation, scope);
    for (const item of s.usingClause ?? []) this.from(item, scope);
    this.conditions(s.whereClause, scope);
    return this.outputs(s.returningClause?.exprs ?? s.returningList, scope);
  }

  // -- FROM

  private from(item: Node, scope: Scope): void {
    if (item.RangeVar) this.table(item.RangeVar, scope);
    else if (item.JoinExpr) {
      const j = item.JoinExpr;
      const before = scope.sources.length;
      this.from(j.larg, scope);
      const middle = scope.sources.length;
      this.from(j.rarg, scope);
      if (j.quals) this.conditions(j.quals, scope);
      for (const name of (j.usingClause ?? []).map((n: Node) => n.String.sval)) {
        const left = scope.sources.slice(before, middle).find((x) => x.columns.has(name));
        const right = scope.sources.slice(middle).find((x) => x.columns.has(name));
        if (left && right) this.union(left.columns.get(name)!, right.columns.get(name)!);
      }
    } else if (item.RangeSubselect) {
      const r = item.RangeSubselect;
      const outputs = this.renamed(this.statement(r.subquery, scope), r.alias?.colnames);
      scope.sources.push({ alias: r.alias?.aliasname ?? '', columns: outputs });
    } else if (item.RangeFunction) {
      this.rangeFunction(item.RangeFunction, scope);
    } else {
      this.problems.push(`FROM item ${Object.keys(item)[0]} is not analysed`);
    }
  }

  private table(rv: Node, scope: Scope): Source {
    const name: string = rv.relname;
    const alias: string = rv.alias?.aliasname ?? name;
    const cte = rv.schemaname ? undefined : this.cte(name, scope);
    let source: Source;
    if (cte) source = { alias, columns: cte };
    else if (this.kinds.distributed.has(name)) {
      const occurrence = {
        table: name,
        alias,
        org: this.fresh(`${name}.organization_id`),
        id: this.fresh(`${name}.id`),
      };
      this.occurrences.push(occurrence);
      source = {
        alias,
        table: name,
        occurrence,
        columns: new Map([
          ['organization_id', occurrence.org],
          ['id', occurrence.id],
        ]),
      };
    } else {
      if (!this.kinds.reference.has(name) && !LOCAL_SCHEMAS.has(rv.schemaname))
        this.problems.push(`table ${name} is neither distributed nor a reference table in docs/scaling.md`);
      source = { alias, table: name, columns: new Map() };
    }
    scope.sources.push(source);
    return source;
  }

  private cte(name: string, scope: Scope | null): Map<string, string> | undefined {
    for (let s = scope; s; s = s.parent) if (s.ctes.has(name)) return s.ctes.get(name);
    return undefined;
  }

  /** `unnest($1::uuid[], …)` and `jsonb_to_recordset($1)`: columns whose values are the parameters'. */
  private rangeFunction(r: Node, scope: Scope): void {
    const columns = new Map<string, string>();
    const names: string[] = [
      ...(r.alias?.colnames ?? []).map((n: Node) => n.String.sval),
      ...(r.coldeflist ?? []).map((c: Node) => c.ColumnDef.colname),
    ];
    const calls = (r.functions ?? []).map((f: Node) => f.List.items[0]?.FuncCall).filter(Boolean);
    if (calls.length === 1) {
      const call = calls[0];
      const fn = call.funcname.at(-1).String.sval as string;
      const args: Node[] = call.args ?? [];
      const paramOf = (arg: Node): number | null => {
        let a = arg;
        while (a?.TypeCast) a = a.TypeCast.arg;
        return a?.ParamRef?.number ?? null;
      };
      if (fn === 'unnest') {
        args.forEach((arg, i) => {
          const n = paramOf(arg);
          const name = names[i];
          if (name && n !== null) columns.set(name, this.valueNode(this.arrayParam(n)));
        });
      } else if (/^jsonb?_to_recordset$/.test(fn) && args[0]) {
        const n = paramOf(args[0]);
        if (n !== null) {
          const rows = this.jsonRows(n);
          for (const name of names) columns.set(name, this.valueNode(rows.map((row) => row[name])));
        }
      }
      this.expressions([args], scope);
    }
    scope.sources.push({ alias: r.alias?.aliasname ?? '', columns });
  }

  // -- conditions and expressions

  /** The conjuncts of a condition that must hold: equalities tie their sides together. */
  private conditions(expr: Node, scope: Scope): void {
    if (!expr) return;
    if (expr.BoolExpr?.boolop === 'AND_EXPR') {
      for (const arg of expr.BoolExpr.args) this.conditions(arg, scope);
      return;
    }
    if (expr.BoolExpr?.boolop === 'OR_EXPR') this.alternatives(expr.BoolExpr.args, scope);
    const a = expr.A_Expr;
    if (a && a.name?.[0]?.String?.sval === '=') {
      const left = this.term(a.lexpr, scope);
      if (a.kind === 'AEXPR_OP') {
        const right = this.term(a.rexpr, scope);
        if (left && right) this.union(left, right);
      } else if (a.kind === 'AEXPR_IN' && left) {
        const items = a.rexpr?.List?.items ?? [];
        const terms = items.map((i: Node) => this.term(i, scope));
        if (terms.every(Boolean)) for (const t of terms) this.union(left, t);
      } else if (a.kind === 'AEXPR_OP_ANY' && left) {
        let r = a.rexpr;
        while (r?.TypeCast) r = r.TypeCast.arg;
        if (r?.ParamRef) this.union(left, this.valueNode(this.arrayParam(r.ParamRef.number)));
        else if (r?.A_ArrayExpr) {
          const terms = (r.A_ArrayExpr.elements ?? []).map((e: Node) => this.term(e, scope));
          if (terms.every(Boolean)) for (const t of terms) this.union(left, t);
        }
      }
    }
    const link = expr.SubLink;
    if (link?.subLinkType === 'ANY_SUBLINK' && link.testexpr) {
      const left = this.term(link.testexpr, scope);
      const outputs = [...this.statement(link.subselect, scope).entries()];
      if (left && outputs.length === 1) {
        if (this.readsOnlyMemberships(link.subselect)) this.spans.add(this.find(left));
        else this.union(left, outputs[0]![1]);
      }
      return;
    }
    this.expressions([expr], scope);
  }

  /**
   * `(a.organization_id = $1 and …) or (a.organization_id = $2 and …)`: a column equal to a value in
   * every branch is tied to the set of those values.
   */
  private alternatives(branches: Node[], scope: Scope): void {
    const perBranch = branches.map((branch) => {
      const pairs = new Map<string, string[]>();
      const conjuncts = branch.BoolExpr?.boolop === 'AND_EXPR' ? branch.BoolExpr.args : [branch];
      for (const c of conjuncts) {
        const a = c.A_Expr;
        if (a?.kind !== 'AEXPR_OP' || a.name?.[0]?.String?.sval !== '=') continue;
        for (const [col, val] of [
          [a.lexpr, a.rexpr],
          [a.rexpr, a.lexpr],
        ]) {
          if (!col?.ColumnRef || this.isColumn(val)) continue;
          const column = this.term(col, scope);
          const value = this.term(val, scope);
          if (column && value) pairs.set(column, [...(pairs.get(column) ?? []), value]);
        }
      }
      return pairs;
    });
    const [first, ...rest] = perBranch;
    for (const [column, values] of first ?? []) {
      if (!rest.every((p) => p.has(column))) continue;
      for (const v of [...values, ...rest.flatMap((p) => p.get(column)!)]) this.union(column, v);
    }
  }

  private isColumn(expr: Node): boolean {
    let e = expr;
    while (e?.TypeCast) e = e.TypeCast.arg;
    return Boolean(e?.ColumnRef);
  }

  /** `SELECT organization_id FROM memberships …`: the caller's organizations. */
  private readsOnlyMemberships(subselect: Node): boolean {
    const from = subselect?.SelectStmt?.fromClause ?? [];
    return from.length === 1 && from[0].RangeVar?.relname === 'memberships';
  }

  /** Walks expressions for subqueries, which are analysed as nested scopes. */
  private expressions(nodes: unknown[], scope: Scope): void {
    const walk = (n: unknown): void => {
      if (!n || typeof n !== 'object') return;
      if (Array.isArray(n)) return n.forEach(walk);
      const node = n as Node;
      if (node.SubLink) {
        this.statement(node.SubLink.subselect, scope);
        walk(node.SubLink.testexpr);
        return;
      }
      for (const v of Object.values(node)) walk(v);
    };
    nodes.forEach(walk);
  }

  /** The node of an expression that names a value of interest: a column, a parameter, a constant. */
  private term(expr: Node, scope: Scope): string | null {
    let e = expr;
    while (e?.TypeCast) e = e.TypeCast.arg;
    if (!e) return null;
    if (e.ParamRef) {
      const v = this.param(e.ParamRef.number);
      return this.valueNode(Array.isArray(v) ? [] : [v]);
    }
    if (e.A_Const) {
      const c = e.A_Const;
      const v = c.sval?.sval ?? c.ival?.ival ?? c.fval?.fval ?? null;
      return v === null ? null : this.valueNode([v]);
    }
    if (e.ColumnRef) {
      const fields = e.ColumnRef.fields.map((f: Node) => f.String?.sval ?? '*');
      const column = fields.at(-1) as string;
      const alias = fields.length > 1 ? (fields.at(-2) as string) : null;
      return this.resolve(alias, column, scope);
    }
    return null;
  }

  private resolve(alias: string | null, column: string, scope: Scope | null): string | null {
    for (let s = scope; s; s = s.parent) {
      if (alias !== null) {
        const source = s.sources.find((x) => x.alias === alias);
        if (source) return source.columns.get(column) ?? null;
      } else {
        const having = s.sources.filter((x) => x.columns.has(column));
        if (having.length >= 1) return having[0]!.columns.get(column)!;
        if (s.sources.length > 0 && s.sources.some((x) => x.occurrence || x.table)) return null;
      }
    }
    return null;
  }

  /** Output columns of a target list, in order: name → node (a star brings its sources' columns). */
  private outputs(targets: Node[] | undefined, scope: Scope): Map<string, string> {
    const out = new Map<string, string>();
    let position = 0;
    for (const t of targets ?? []) {
      const r = t.ResTarget;
      if (!r) continue;
      const fields = r.val?.ColumnRef?.fields;
      if (fields?.at(-1)?.A_Star) {
        const alias = fields.length > 1 ? fields.at(-2).String.sval : null;
        for (const source of scope.sources)
          if (alias === null || source.alias === alias)
            for (const [name, node] of source.columns)
              if (name !== '*' && !out.has(name)) out.set(name, node);
        continue;
      }
      position++;
      const name: string = r.name ?? fields?.at(-1)?.String?.sval ?? `?column${position}`;
      const node = this.term(r.val, scope) ?? this.fresh(name);
      out.set(name, node);
    }
    return out;
  }

  // -- result

  verdict(options: CheckOptions): StatementVerdict {
    const organizations = new Set<string>();
    let spanning: Spanning | null = null;
    const problems = [...this.problems];
    for (const o of this.occurrences) {
      const root = this.find(o.org);
      const values = this.values.get(root) ?? new Set<string>();
      if (values.size === 1) {
        organizations.add([...values][0]!);
        continue;
      }
      const callers = options.callerOrganizations;
      if (values.size > 1 && !this.writes && (!callers || [...values].every((v) => callers.has(v)))) {
        spanning ??= 'caller-organizations';
        continue;
      }
      if (values.size > 1) {
        problems.push(
          `${o.table} ${o.alias} spans ${values.size} organizations (${[...values].sort().join(', ')})`,
        );
        continue;
      }
      if (this.spans.has(root)) {
        spanning ??= 'caller-organizations';
        continue;
      }
      // A look-up by id may name several ids (`id = any($1)`, `id in (…)`, a join on an `unnest` of
      // ids: the access checks of several requests combined); each row is found by its own id.
      const ids = this.values.get(this.find(o.id)) ?? new Set<string>();
      if (ids.size >= 1 && !this.writes) {
        spanning ??= 'by-id';
        continue;
      }
      problems.push(`${o.table} ${o.alias} is not restricted to one organization`);
    }
    if (organizations.size > 1)
      problems.push(`tied to ${organizations.size} organizations (${[...organizations].sort().join(', ')})`);
    if (spanning && this.writes) problems.push(`writes while reading across organizations (${spanning})`);
    return {
      organizations,
      spanning: problems.length === 0 ? spanning : null,
      writes: this.writes,
      problems,
    };
  }
}
