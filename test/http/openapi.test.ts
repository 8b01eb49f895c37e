/**
 * Completeness of the OpenAPI document (issue 12): every operation has a summary, a description, tags,
 * a documented success response, every error response a client can receive (with the `_tag`s that
 * apply and an example body), and examples for its request and response bodies that are valid
 * against their own schemas. New routes are covered automatically: the test walks the whole document.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE } from '../../src/domain/error-catalogue.ts';
import { RECORDED_EXAMPLES } from '../../src/http/openapi-examples.ts';
import { createTestContext, type TestContext } from '../helpers/app.ts';

type Json = Record<string, any>;
interface Op {
  key: string;
  op: Json;
  isPublic: boolean;
}

let t: TestContext;
let doc: Json;
let ops: Op[];

beforeAll(async () => {
  t = await createTestContext();
  const res = await t.get('/api/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body;
  ops = [];
  for (const [path, methods] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const [method, op] of Object.entries(methods as Record<string, Json>)) {
      ops.push({ key: `${method.toUpperCase()} ${path}`, op, isPublic: !op.security?.length });
    }
  }
});
afterAll(async () => t?.close());

/** Collects `problem` per operation and fails once, listing every operation that lacks something. */
function expectEvery(check: (o: Op) => string[]) {
  const problems: string[] = [];
  for (const o of ops) for (const p of check(o)) problems.push(`${o.key}: ${p}`);
  expect(problems).toEqual([]);
}

const json = (media: Json | undefined): Json | undefined => media?.content?.['application/json'];

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

function makeAjv() {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: 'doc', components: doc.components ?? {} });
  return ajv;
}

/** Rewrites `#/components/...` references to the schema registered as `doc`. */
function rebase(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rebase);
  if (schema && typeof schema === 'object') {
    const out: Json = {};
    for (const [k, v] of Object.entries(schema)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `doc${v}` : rebase(v);
    }
    return out;
  }
  return schema;
}

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 with the health version and a bearer scheme on protected operations', async () => {
    const health = await t.get('/api/health');
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.info.version).toBe(health.body.version);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    const publicOps = ops.filter((o) => o.isPublic).map((o) => o.key);
    expect(publicOps.sort()).toEqual(['GET /api/health', 'POST /api/auth/login', 'POST /api/auth/register']);
    expect(ops.length).toBeGreaterThan(90);
  });

  it('every operation has a summary, a description and tags', () => {
    expectEvery(({ op }) => [
      ...(typeof op.summary === 'string' && op.summary.trim() ? [] : ['summary missing']),
      ...(typeof op.description === 'string' && op.description.trim() ? [] : ['description missing']),
      ...(Array.isArray(op.tags) && op.tags.length > 0 ? [] : ['tags missing']),
    ]);
  });

  it('every operation documents a 2xx response with a schema (204: no content)', () => {
    expectEvery(({ op }) => {
      const success = Object.entries(op.responses ?? {}).filter(([s]) => /^2\d\d$/.test(s));
      if (success.length === 0) return ['no 2xx response'];
      const ok = success.some(([s, r]) => (s === '204' ? true : json(r as Json)?.schema !== undefined));
      return ok ? [] : ['no 2xx response with a schema'];
    });
  });

  it('every operation documents its error responses, naming the `_tag`s with an example', () => {
    expectEvery(({ op, key, isPublic }) => {
      const problems: string[] = [];
      const responses = op.responses ?? {};
      const [method, path] = key.split(' ') as [string, string];
      const takesInput = (op.parameters ?? []).length > 0 || op.requestBody !== undefined;
      const namesOrg =
        path.includes('/organizations/{') ||
        JSON.stringify(op.parameters ?? []).includes('"organizationId"') ||
        JSON.stringify(op.requestBody ?? {}).includes('"organizationId"');
      const byId = /\{(id|[a-zA-Z]+Id)\}/.test(path);
      const required = [
        ...(takesInput || (method === 'POST' && path.startsWith('/api/v1/')) ? ['400'] : []),
        ...(isPublic ? [] : ['401']),
        ...(!isPublic && (namesOrg || byId) ? ['403', '404'] : []),
        ...(method === 'POST' && path.startsWith('/api/v1/') ? ['409'] : []),
        '413',
        ...(path === '/api/health' ? [] : ['429']),
        '500',
        '503',
      ];
      if (key === 'POST /api/auth/login') required.push('401');
      for (const status of required) if (!responses[status]) problems.push(`missing ${status}`);
      for (const [status, response] of Object.entries(responses as Record<string, Json>)) {
        if (Number(status) < 400) continue;
        if (key === 'GET /api/health' && status === '503') continue; // HealthStatus body (contract 3.1)
        if (!/`_tag`: `[A-Za-z]+Error`/.test(response.description ?? ''))
          problems.push(`${status} names no _tag`);
        const media = json(response);
        if (!media?.schema) problems.push(`${status} has no schema`);
        if (typeof media?.example?._tag !== 'string') problems.push(`${status} has no example body`);
      }
      if (responses['403'] && !/ForbiddenError/.test(responses['403'].description ?? '')) {
        problems.push('403 does not name ForbiddenError');
      }
      return problems;
    });
  });

  it('every request body and JSON response has an example that matches its schema', () => {
    const ajv = makeAjv();
    expectEvery(({ op }) => {
      const problems: string[] = [];
      const check = (where: string, media: Json | undefined) => {
        if (!media?.schema) return;
        if (media.example === undefined) {
          problems.push(`${where}: no example`);
          return;
        }
        const validate = ajv.compile(rebase(media.schema) as Json);
        if (!validate(media.example)) {
          problems.push(`${where}: example invalid: ${ajv.errorsText(validate.errors)}`);
        }
      };
      check('request body', json(op.requestBody));
      for (const [status, response] of Object.entries(op.responses ?? {}))
        check(status, json(response as Json));
      return problems;
    });
  }, 120_000); // compiles every schema of the document: slow on a loaded machine

  it('documents path parameters and names the NotFound tag of malformed ids', () => {
    expectEvery(({ op }) =>
      (op.parameters ?? [])
        .filter((p: Json) => p.in === 'path' && !p.description)
        .map((p: Json) => `path parameter ${p.name} has no description`),
    );
    const get = doc.paths['/api/v1/organizations/{organizationId}/companies/{companyId}'].get;
    expect(get.responses['404'].description).toContain('CompanyNotFoundError');
    expect(get.responses['404'].description).toContain('OrganizationNotFoundError');
  });

  it('lists the endpoint-specific error tags of the contract', () => {
    const create = doc.paths['/api/v1/companies'].post;
    expect(create.responses['409'].description).toContain('CompanyNameAlreadyExistsError');
    expect(create.responses['409'].description).toContain('IdempotencyKeyReusedError');
    const post = doc.paths['/api/v1/journal-entries/{id}/post'].post;
    expect(post.responses['400'].description).toContain('InvalidStatusTransitionError');
    expect(post.responses['403'].description).toContain('SegregationOfDutiesViolationError');
    const login = doc.paths['/api/auth/login'].post;
    expect(login.responses['401'].description).toContain('InvalidCredentialsError');
    expect(doc.components.schemas.CompanyNotFoundError).toMatchObject({
      required: ['_tag', 'message', 'companyId'],
      properties: { _tag: { const: 'CompanyNotFoundError' } },
    });
  });

  it('the recorded examples of the getting-started routes are accepted by the service again', async () => {
    const register = json(doc.paths['/api/auth/register'].post.requestBody)!.example;
    const email = `openapi-${Date.now()}@example.com`;
    const reg = await t.post('/api/auth/register', { body: { ...register, email } });
    expect(reg.status).toBe(201);
    const login = json(doc.paths['/api/auth/login'].post.requestBody)!.example;
    const session = await t.post('/api/auth/login', {
      body: { ...login, email, password: register.password },
    });
    expect(session.status).toBe(200);
    const org = json(doc.paths['/api/v1/organizations'].post.requestBody)!.example;
    const created = await t.post('/api/v1/organizations', {
      token: session.body.token,
      body: { ...org, name: `OpenAPI example ${Date.now()}` },
    });
    expect(created.status).toBe(201);
    const company = json(doc.paths['/api/v1/companies'].post.requestBody)!.example;
    const co = await t.post('/api/v1/companies', {
      token: session.body.token,
      body: { ...company, organizationId: created.body.id },
    });
    expect(co.status).toBe(201);
    const rate = json(doc.paths['/api/v1/exchange-rates'].post.requestBody)!.example;
    const r = await t.post('/api/v1/exchange-rates', {
      token: session.body.token,
      body: { ...rate, organizationId: created.body.id },
    });
    expect(r.status).toBe(201);
  });
});

/** Every `example` value of the document (request bodies, parameters, responses), with where it is. */
function allExamples(): Array<{ where: string; value: unknown }> {
  const out: Array<{ where: string; value: unknown }> = [];
  for (const { key, op } of ops) {
    const body = json(op.requestBody);
    if (body?.example !== undefined) out.push({ where: `${key} request`, value: body.example });
    for (const p of op.parameters ?? []) {
      if (p.example !== undefined) out.push({ where: `${key} ${p.in} ${p.name}`, value: p.example });
    }
    for (const [status, response] of Object.entries(op.responses ?? {})) {
      const media = json(response as Json);
      if (media?.example !== undefined) out.push({ where: `${key} ${status}`, value: media.example });
    }
  }
  return out;
}

function strings(value: unknown, path: string, out: Array<[string, string]> = []): Array<[string, string]> {
  if (typeof value === 'string') out.push([path, value]);
  else if (Array.isArray(value)) value.forEach((v, i) => strings(v, `${path}/${i}`, out));
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) strings(v, `${path}/${k}`, out);
  return out;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

function dec(value: string): bigint {
  const [int, frac = ''] = value.split('.');
  return BigInt(`${int}${frac.padEnd(4, '0')}`);
}

describe('OpenAPI examples recorded from the service', () => {
  it('every operation has a recorded request and answer (npm run docs:examples), used by the document', () => {
    expectEvery(({ key, op }) => {
      const recordedKey = key.replace(/\{[^}]+\}/g, '{}');
      const recorded = RECORDED_EXAMPLES.operations[recordedKey];
      if (!recorded) return ['no recorded example: run `npm run docs:examples`'];
      const problems: string[] = [];
      const body = json(op.requestBody);
      if (body?.schema && recorded.request === undefined) problems.push('no recorded request body');
      if (body?.schema && recorded.request !== undefined && !same(body.example, recorded.request))
        problems.push('request example is not the recorded one');
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        const media = json(response as Json);
        if (!/^2/.test(status) || !media?.schema || key === 'GET /api/openapi.json') continue;
        if (recorded.response === undefined) problems.push(`${status}: no recorded answer`);
        else if (!same(media.example, recorded.response))
          problems.push(`${status}: example is not the recorded one`);
      }
      return problems;
    });
  });

  it('no example is a placeholder', () => {
    const placeholder = /^([a-zA-Z]+ )?text$|^example$|^x+$|^string$/;
    const found: string[] = [];
    for (const { where, value } of allExamples()) {
      for (const [path, s] of strings(value, ''))
        if (placeholder.test(s)) found.push(`${where} ${path}: ${s}`);
    }
    expect(found).toEqual([]);
  });

  it('query parameter examples are valid for their parameters', () => {
    const ajv = makeAjv();
    expectEvery(({ op }) =>
      (op.parameters ?? [])
        .filter((p: Json) => p.in === 'query' && p.example !== undefined)
        .filter((p: Json) => {
          const schema = { ...(rebase(p.schema) as Json) };
          // Query values arrive as text: integers and booleans are checked in their written form.
          const value = ['integer', 'number'].includes(schema.type)
            ? Number(p.example)
            : schema.type === 'boolean'
              ? p.example === 'true'
              : p.example;
          return !ajv.validate(schema, value);
        })
        .map((p: Json) => `query ${p.name}: example ${p.example} invalid`),
    );
  });

  it('examples are plausible as accounting', () => {
    const ex = (path: string, method = 'get', status = '200') =>
      json(doc.paths[path][method].responses[status])!.example as Json;
    // A consolidated trial balance and statements of a completed year-end run: balanced, year start
    // before the reporting date, assets equal to liabilities and equity.
    const tb = ex('/api/v1/consolidation/runs/{id}/trial-balance');
    if (tb.yearStartDate !== undefined) expect(tb.yearStartDate < tb.asOfDate).toBe(true);
    const bs = ex('/api/v1/consolidation/runs/{id}/reports/balance-sheet');
    expect(bs.isBalanced).toBe(true);
    expect(dec(bs.totalAssets.value)).toBe(dec(bs.totalLiabilitiesAndEquity.value));
    expect(dec(bs.totalAssets.value) > 0n).toBe(true);
    const companyBs = ex('/api/v1/reports/balance-sheet');
    expect(dec(companyBs.totalAssets.value)).toBe(dec(companyBs.totalLiabilitiesAndEquity.value));
    // Journal entries: every example balances, in the entry's currency.
    const entries = [
      ex('/api/v1/journal-entries/{id}'),
      ex('/api/v1/journal-entries', 'post', '201'),
      ...ex('/api/v1/journal-entries').entries,
    ];
    for (const e of entries) {
      let debit = 0n;
      let credit = 0n;
      for (const l of e.lines) {
        if (l.debitAmount) debit += dec(l.debitAmount.value);
        if (l.creditAmount) credit += dec(l.creditAmount.value);
      }
      expect(debit, e.entryNumber).toBe(credit);
      expect(debit > 0n).toBe(true);
    }
    // A company income statement covers a period that starts before it ends.
    const is = ex('/api/v1/reports/income-statement');
    expect(is.periodStartDate < is.periodEndDate).toBe(true);
  });
});

describe('OpenAPI conventions', () => {
  it('declares Idempotency-Key on every POST under /api/v1, with the replay header and the 409s', () => {
    expectEvery(({ key, op }) => {
      const [method, path] = key.split(' ') as [string, string];
      if (method !== 'POST' || !path.startsWith('/api/v1/')) return [];
      const problems: string[] = [];
      const header = (op.parameters ?? []).find(
        (p: Json) => p.in === 'header' && p.name === 'Idempotency-Key',
      );
      if (!header) problems.push('no Idempotency-Key header');
      else if (header.required || !/Idempotent-Replayed/.test(header.description))
        problems.push('header undocumented');
      const success = Object.entries(op.responses ?? {}).filter(([s]) => /^2/.test(s));
      for (const [status, r] of success) {
        if (!(r as Json).headers?.['Idempotent-Replayed'])
          problems.push(`${status} lacks Idempotent-Replayed`);
      }
      const conflict = op.responses?.['409']?.description ?? '';
      for (const tag of ['IdempotencyKeyReusedError', 'IdempotencyKeyInProgressError'])
        if (!conflict.includes(tag)) problems.push(`409 does not name ${tag}`);
      return problems;
    });
    const auth = doc.paths['/api/auth/login'].post;
    expect((auth.parameters ?? []).some((p: Json) => p.name === 'Idempotency-Key')).toBe(false);
  });

  it('the API description stands on its own: conventions and every error tag with its status', () => {
    const text: string = doc.info.description;
    expect(text).not.toMatch(/contract|specification|section \d|§|\b\d+\.\d+\.\d+\b/i);
    for (const word of ['Idempotency-Key', 'nextCursor', 'ValidationError', 'Bearer', 'decimal string'])
      expect(text).toContain(word);
    for (const [tag, info] of Object.entries(ERROR_CATALOGUE))
      expect(text).toContain(`| \`${tag}\` | ${info.status} |`);
  });

  it('documents that an unknown query parameter is a 400', () => {
    const list = doc.paths['/api/v1/journal-entries'].get;
    expect(list.responses['400'].description).toMatch(/unknown query parameter/);
    expect(list.parameters.map((p: Json) => p.name)).toEqual(
      expect.arrayContaining(['after', 'limit', 'offset']),
    );
    expect(json(list.responses['200'])!.schema.properties.nextCursor).toBeDefined();
  });

  it('a replayed POST carries Idempotent-Replayed: true', async () => {
    const user = await t.user('idem');
    const key = `openapi-${Date.now()}`;
    const send = () =>
      t.post('/api/v1/organizations', {
        token: user.token,
        headers: { 'idempotency-key': key },
        body: { name: `Idempotent ${key}`, reportingCurrency: 'EUR' },
      });
    const first = await send();
    const again = await send();
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
  });
});
