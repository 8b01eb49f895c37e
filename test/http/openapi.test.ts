/**
 * Completeness of the OpenAPI document (issue 12): every operation has a summary, a description, tags,
 * a documented success response, every error response a client can receive (with the `_tag`s that
 * apply and an example body), and examples for its request and response bodies that are valid
 * against their own schemas. New routes are covered automatically: the test walks the whole document.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  });

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

  it('the hand-written examples of the getting-started routes are accepted by the service', async () => {
    const register = json(doc.paths['/api/auth/register'].post.requestBody)!.example;
    const email = `openapi-${Date.now()}@example.com`;
    const reg = await t.post('/api/auth/register', { body: { ...register, email } });
    expect(reg.status).toBe(201);
    const login = json(doc.paths['/api/auth/login'].post.requestBody)!.example;
    const session = await t.post('/api/auth/login', { body: { ...login, email } });
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
