/**
 * OpenAPI document enrichment, applied once when the document is first generated (hooks of
 * @fastify/swagger). Routes declare schemas, summaries and descriptions; this module adds, without
 * touching every route:
 *
 * - for each error status of an operation, the `_tag`s it can carry (the common errors, the
 *   endpoint's own errors from its route's `config.errors`, NotFound tags of its malformed path ids) as a
 *   `oneOf` of per-tag schemas under `components.schemas`, a description naming them and an example;
 * - an example for every request body, query parameter and JSON response, recorded from the service
 *   (`openapi-examples.ts`, `npm run docs:examples`); an operation added since the last recording gets
 *   one generated from its schema until the next (a test lists the operations without a recording);
 * - the `Idempotency-Key` header on every POST under `/api/v1`, with the `Idempotent-Replayed` answer
 *   header and the 409s of a reused or running key;
 * - descriptions of path parameters;
 * - `x-access` on every authenticated operation: the action its route declares in `config.access` and
 *   the minimum role that action asks for (both null when any signed-in user may call it);
 * - the API description: conventions and the whole error catalogue.
 *
 * Nothing here changes validation or serialisation: only the generated document is edited.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { type RouteAccess, requiredRoleOf } from '../access/access.ts';
import { ERROR_CATALOGUE } from '../domain/error-catalogue.ts';
import { RECORDED_EXAMPLES } from './openapi-examples.ts';
import { exampleOf, type Json, SAMPLE_UUIDS, type Schema } from './openapi-schema-examples.ts';

type OpenApiDoc = Record<string, unknown> & {
  paths?: Record<string, Record<string, Operation>>;
  components?: Record<string, unknown> & { schemas?: Record<string, Schema> };
};
interface Operation {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: unknown[];
  'x-access'?: { action: string | null; minimumRole: string | null };
  parameters?: Array<{
    in: string;
    name: string;
    description?: string;
    required?: boolean;
    schema?: Schema;
    example?: unknown;
  }>;
  requestBody?: { content?: Record<string, MediaType> };
  responses?: Record<
    string,
    { description?: string; headers?: Record<string, unknown>; content?: Record<string, MediaType> }
  >;
}
interface MediaType {
  schema?: Schema;
  example?: unknown;
  examples?: unknown;
}

interface RouteInfo {
  isPublic: boolean;
  pathIds: Record<string, { tag: string }>;
  /** The route also takes a CSV body. */
  csvBody?: boolean;
  access?: RouteAccess;
  errors?: readonly string[];
}

const STATUS_TITLES: Record<number, string> = {
  400: 'Bad request: validation failed (a malformed body, header or query parameter, or an unknown query parameter) or a business rule refused the request',
  401: 'Not authenticated',
  403: 'Forbidden',
  404: 'Not found',
  405: 'Method not allowed',
  409: 'Conflict',
  413: 'Payload too large',
  429: 'Rate limit exceeded',
  500: 'Internal server error',
  503: 'Service unavailable',
};

const SUCCESS_TITLES: Record<string, string> = { '200': 'OK', '201': 'Created', '204': 'No content' };

/** Key of an operation: `POST /api/v1/companies/{}` (every path parameter written `{}`). */
export function operationKey(method: string, path: string): string {
  return `${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, '{}').replace(/:[A-Za-z0-9_]+/g, '{}')}`;
}

type Hooks = Required<Pick<FastifyDynamicSwaggerOptions, 'transform' | 'transformObject'>>;

export function createOpenApiHooks(): Hooks {
  const routes = new Map<string, RouteInfo>();

  const transform: Hooks['transform'] = ({ schema, url, route }) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    const config = route.config ?? {};
    for (const m of methods) {
      routes.set(operationKey(m, url), {
        isPublic: config.public === true,
        pathIds: config.pathIds ?? {},
        csvBody: config.csvBody !== undefined,
        ...(config.access ? { access: config.access } : {}),
        ...(config.errors ? { errors: config.errors } : {}),
      });
    }
    return { schema, url };
  };

  const transformObject: Hooks['transformObject'] = (documentObject) => {
    const doc = ('openapiObject' in documentObject
      ? documentObject.openapiObject
      : documentObject.swaggerObject) as unknown as OpenApiDoc;
    enrichDocument(doc, routes);
    const info = (doc.info ?? {}) as Record<string, unknown>;
    info.description = apiDescription();
    doc.info = info;
    return doc as never;
  };

  return { transform, transformObject };
}

export function enrichDocument(doc: OpenApiDoc, routes: Map<string, RouteInfo>): void {
  doc.components ??= {};
  const components = doc.components;
  components.schemas ??= {};
  const schemas = components.schemas;
  for (const [path, ops] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(ops)) {
      const key = operationKey(method, path);
      const info = routes.get(key) ?? { isPublic: !op.security, pathIds: {} };
      describePathParameters(op, info);
      if (info.access) {
        const action = info.access === 'signedIn' ? null : info.access;
        op['x-access'] = { action, minimumRole: requiredRoleOf(info.access) };
      }
      documentErrors(op, key, info, schemas);
      if (method.toUpperCase() === 'POST' && path.startsWith('/api/v1/')) documentIdempotency(op);
      addExamples(op, key);
      addFileMediaTypes(op, info);
    }
  }
}

const XLSX_MEDIA_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/**
 * The file forms of an operation: answers offered as CSV and XLSX (operations with a `format`
 * parameter offering `csv`), and CSV request bodies (routes that read one).
 */
function addFileMediaTypes(op: Operation, info: RouteInfo): void {
  const format = (op.parameters ?? []).find((p) => p.in === 'query' && p.name === 'format');
  const offered = (format?.schema?.enum as unknown[] | undefined) ?? [];
  const ok = op.responses?.['200'];
  if (offered.includes('csv') && ok) {
    ok.content ??= {};
    ok.content['text/csv'] = {
      schema: {
        type: 'string',
        description:
          'CSV with a header row; amounts as decimal strings. Sent as an attachment (Content-Disposition names the company or group and the date).',
      },
    };
    ok.content[XLSX_MEDIA_TYPE] = {
      schema: {
        type: 'string',
        format: 'binary',
        description:
          "Spreadsheet with a frozen header row, amounts as numbers formatted to the currency's minor units, section headers and subtotal rows.",
      },
    };
  }
  if (info.csvBody && op.requestBody?.content) {
    op.requestBody.content['text/csv'] = {
      schema: {
        type: 'string',
        description:
          'CSV file: a header row naming the columns (case-insensitive), `,` or `;` separated, optional UTF-8 byte-order mark; the options go in the query string.',
      },
    };
  }
}

function describePathParameters(op: Operation, info: RouteInfo): void {
  for (const p of op.parameters ?? []) {
    if (p.in !== 'path' || p.description) continue;
    const rule = info.pathIds[p.name];
    p.description = rule
      ? `UUID; an unknown or malformed value answers 404 ${rule.tag}`
      : p.name === 'type'
        ? 'Template type: GeneralBusiness, Manufacturing, ServiceBusiness or HoldingCompany'
        : `Path parameter ${p.name}`;
  }
}

/** The `_tag`s each error status of an operation can carry. */
function errorTagsOf(op: Operation, key: string, info: RouteInfo): Map<number, string[]> {
  const tags = new Map<number, string[]>();
  const add = (tag: string) => {
    const status = ERROR_CATALOGUE[tag]?.status;
    if (status === undefined) return;
    const list = tags.get(status) ?? [];
    if (!list.includes(tag)) list.push(tag);
    tags.set(status, list);
  };
  const [method, path] = key.split(' ') as [string, string];
  const hasInput =
    (op.parameters ?? []).some((p) => p.in === 'query' || p.in === 'path') || op.requestBody !== undefined;
  const namesOrg = operationNamesOrganization(op, path);
  const isV1Post = method === 'POST' && path.startsWith('/api/v1/');

  // Idempotency-Key is validated on every POST under /api/v1 (400 at /headers/Idempotency-Key).
  if (hasInput || isV1Post) add('ValidationError');
  if (!info.isPublic) {
    add('UnauthorizedError');
    // Not a member of the organization the request names or of the addressed resource's, or role.
    if (namesOrg || Object.keys(info.pathIds).length > 0 || referencesById(op)) add('ForbiddenError');
  }
  if (namesOrg && !info.isPublic) add('OrganizationNotFoundError');
  for (const rule of Object.values(info.pathIds)) add(rule.tag);
  for (const tag of info.errors ?? []) add(tag);
  if (isV1Post) {
    add('IdempotencyKeyReusedError');
    add('IdempotencyKeyInProgressError');
  }
  add('PayloadTooLargeError'); // the Content-Length check runs on every route
  if (path !== '/api/health') add('RateLimitExceededError'); // deployment rate limit, login throttling
  add('InternalServerError');
  if (path !== '/api/health') add('ServiceUnavailableError');
  // A write whose sums would exceed what the ledger stores (balances of 20 integer digits).
  if (path.startsWith('/api/v1/') && ['POST', 'PUT', 'PATCH'].includes(method)) add('AmountOutOfRangeError');
  return tags;
}

function documentErrors(op: Operation, key: string, info: RouteInfo, schemas: Record<string, Schema>): void {
  op.responses ??= {};
  const byStatus = errorTagsOf(op, key, info);
  // Statuses the route declares but no tag explains (e.g. a generic 409 on a route without conflicts)
  // keep a generic body; statuses the error catalogue names for the endpoint are added when missing.
  for (const [status, tags] of byStatus) {
    const code = String(status);
    const existing = op.responses[code];
    if (existing?.content && !isErrorBody(existing.content['application/json']?.schema)) continue; // e.g. 503 HealthStatus
    const refs = tags.map((tag) => {
      schemas[tag] ??= tagSchema(tag);
      return { $ref: `#/components/schemas/${tag}` };
    });
    const list = tags.map((t) => `\`${t}\`${fieldList(t)}`).join(', ');
    op.responses[code] = {
      description: `${STATUS_TITLES[status] ?? 'Error'}. \`_tag\`: ${list}.`,
      content: {
        'application/json': {
          schema: refs.length === 1 ? refs[0]! : { oneOf: refs },
          example: errorExample(tags[0]!, key),
        },
      },
    };
  }
  for (const [code, response] of Object.entries(op.responses)) {
    const status = Number(code);
    if (status < 400 || byStatus.has(status)) continue;
    // A generic status (from the `responses()` helper) that no error of this operation can produce.
    if (isErrorBody(response.content?.['application/json']?.schema)) delete op.responses[code];
  }
}

/** Whether the request names an organization: path, query parameter or (nested) body field. */
function operationNamesOrganization(op: Operation, path: string): boolean {
  if (path.includes('/organizations/{}')) return true;
  if ((op.parameters ?? []).some((p) => p.name === 'organizationId')) return true;
  const seen = new Set<unknown>();
  const walk = (node: unknown): boolean => {
    if (node === null || typeof node !== 'object' || seen.has(node)) return false;
    seen.add(node);
    const props = (node as Schema).properties as Schema | undefined;
    if (props && 'organizationId' in props) return true;
    return Object.values(node as Schema).some(walk);
  };
  return walk(op.requestBody?.content?.['application/json']?.schema);
}

/** A query parameter or body field naming a resource by id (`consolidationGroupId`, `companyId`, ...). */
function referencesById(op: Operation): boolean {
  if ((op.parameters ?? []).some((p) => /Id$/.test(p.name))) return true;
  const props = op.requestBody?.content?.['application/json']?.schema?.properties as Schema | undefined;
  return Object.keys(props ?? {}).some((name) => /Id$/.test(name));
}

function isErrorBody(schema: Schema | undefined): boolean {
  const props = schema?.properties as Schema | undefined;
  return props !== undefined && '_tag' in props;
}

function fieldList(tag: string): string {
  const fields = ERROR_CATALOGUE[tag]?.fields ?? [];
  return fields.length === 0 ? '' : ` {${fields.map((f) => f[0]).join(', ')}}`;
}

function fieldSchema(name: string, note: string | undefined): Schema {
  const n = note ?? '';
  if (name === 'issues') {
    return {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['path', 'message'],
        properties: {
          path: {
            type: 'string',
            description: 'JSON Pointer into the body, `/query/<name>` or `/headers/<Name>`',
          },
          message: { type: 'string' },
        },
      },
    };
  }
  if (n.startsWith('integer | null')) return { type: ['integer', 'null'] };
  if (n.startsWith('integer')) return { type: 'integer' };
  if (n.startsWith('boolean')) return { type: 'boolean' };
  if (n.startsWith('string[]') || n.startsWith('uuid[]')) return { type: 'array', items: { type: 'string' } };
  if (n === 'Money') {
    return {
      type: 'object',
      required: ['value', 'currency'],
      properties: { value: { type: 'string' }, currency: { type: 'string' } },
    };
  }
  if (n.includes('PeriodRef')) {
    return {
      type: 'object',
      required: ['year', 'period'],
      properties: { year: { type: 'integer' }, period: { type: 'integer' } },
    };
  }
  if (n.includes('| null') || n.includes('\\| null')) return { type: ['string', 'null'] };
  return n ? { type: 'string', description: n } : { type: 'string' };
}

function tagSchema(tag: string): Schema {
  const info = ERROR_CATALOGUE[tag]!;
  const properties: Record<string, Schema> = {
    _tag: { type: 'string', const: tag },
    message: { type: 'string', description: 'Human-readable English text; not stable' },
  };
  for (const [name, note] of info.fields) properties[name] = fieldSchema(name, note);
  return {
    type: 'object',
    description: `${info.status} ${tag}`,
    required: ['_tag', 'message', ...info.fields.map((f) => f[0])],
    properties,
    additionalProperties: true,
  };
}

const ERROR_MESSAGES: Record<string, string> = {
  ValidationError: 'Request validation failed',
  UnauthorizedError: 'Authentication required',
  ForbiddenError: 'Your role does not allow this action',
  InternalServerError: 'Internal server error',
  ServiceUnavailableError: 'The database is unavailable',
};

function errorExample(tag: string, key: string): Json {
  const recorded = RECORDED_EXAMPLES.errors[tag];
  if (recorded && tag !== 'RouteNotFoundError' && tag !== 'MethodNotAllowedError') return recorded as Json;
  const info = ERROR_CATALOGUE[tag]!;
  const body: Record<string, Json> = {
    _tag: tag,
    message:
      ERROR_MESSAGES[tag] ??
      tag
        .replace(/Error$/, '')
        .replace(/([a-z])([A-Z])/g, (_, a: string, b: string) => `${a} ${b.toLowerCase()}`),
  };
  for (const [name, note] of info.fields) body[name] = errorFieldExample(name, note, key);
  return body;
}

function errorFieldExample(name: string, note: string | undefined, key: string): Json {
  const n = note ?? '';
  if (name === 'issues') return [{ path: '/name', message: 'must NOT have fewer than 1 characters' }];
  if (name === 'resource') return 'Organization';
  if (name === 'action') return 'organization:update';
  if (name === 'requiredRole') return 'admin';
  if (name === 'currentRole') return 'viewer';
  if (name === 'method') return key.split(' ')[0]!;
  if (name === 'path') return key.split(' ')[1]!;
  if (name === 'requestId') return 'b3d1c6a2-4f5e-4a7b-9c8d-0e1f2a3b4c5d';
  if (name === 'idempotencyKey') return 'create-company-42';
  if (name === 'maxBytes') return 1048576;
  if (name === 'retryAfterSeconds') return 30;
  if (name === 'email') return 'ann@example.com';
  if (name === 'name') return 'Acme Group';
  if (name === 'requirements') return ['at least 8 characters'];
  if (name === 'templateType') return 'Retail';
  if (name === 'accountNumber') return '1010';
  if (name === 'rateType') return 'Spot';
  if (/Id$/.test(name)) return SAMPLE_UUIDS[0]!;
  if (/Ids$/.test(name)) return [SAMPLE_UUIDS[1]!];
  if (n === 'Money') return { value: '0.01', currency: 'USD' };
  if (n.includes('PeriodRef')) return { year: 2026, period: 1 };
  if (n.startsWith('integer')) return 1;
  if (n.startsWith('boolean')) return false;
  if (n.startsWith('string[]')) return [];
  if (/Date$|^date$/.test(name) || /periodStart|periodEnd/.test(name)) return '2026-01-31';
  if (/Currency$|^currency$/.test(name)) return 'EUR';
  if (name === 'year' || name === 'fiscalYear') return 2026;
  if (/Status$/.test(name)) return 'Closed';
  const choices = n.split('|').map((s) => s.trim());
  if (choices.length > 1 && /^[A-Za-z]+$/.test(choices[0]!)) return choices[0]!;
  const list = n.split(',').map((s) => s.trim());
  if (list.length > 1 && /^[A-Za-z]+$/.test(list[0]!)) return list[0]!;
  return 'example';
}

function addExamples(op: Operation, key: string): void {
  const recorded = RECORDED_EXAMPLES.operations[key];
  const body = op.requestBody?.content?.['application/json'];
  if (body?.schema && body.example === undefined && body.examples === undefined) {
    body.example = (recorded?.request as Json | undefined) ?? exampleOf(body.schema, { request: true });
  }
  for (const p of op.parameters ?? []) {
    if (p.in !== 'query' || p.example !== undefined) continue;
    const value = recorded?.query?.[p.name];
    if (value !== undefined) p.example = value;
  }
  for (const [code, response] of Object.entries(op.responses ?? {})) {
    if (response.description === 'Default Response') response.description = SUCCESS_TITLES[code] ?? 'Success';
    const media = response.content?.['application/json'];
    if (!media?.schema || media.example !== undefined || media.examples !== undefined) continue;
    const status = Number(code);
    media.example =
      status < 300 && recorded?.response !== undefined
        ? (recorded.response as Json)
        : exampleOf(media.schema, { request: false });
  }
}

const IDEMPOTENCY_KEY_DESCRIPTION =
  'Optional. 1–255 visible ASCII characters chosen by the client (a UUID is a good choice). The first ' +
  'request with a key runs normally and its answer is stored for 24 hours; a retry with the same key, ' +
  'the same method, path, query and body within that time gets the stored status and body again, with ' +
  'the header `Idempotent-Replayed: true`, and nothing runs twice. The same key with a different request ' +
  'answers `409 IdempotencyKeyReusedError`; a key whose first request is still running answers ' +
  '`409 IdempotencyKeyInProgressError`. 5xx and 429 answers are not stored, so such a request can be ' +
  'retried with the same key. Keys are per user.';

/** The Idempotency-Key header and the replay header of the answers (every POST under /api/v1). */
function documentIdempotency(op: Operation): void {
  op.parameters ??= [];
  if (!op.parameters.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key')) {
    op.parameters.push({
      in: 'header',
      name: 'Idempotency-Key',
      required: false,
      description: IDEMPOTENCY_KEY_DESCRIPTION,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7E]+$' },
      example: '5f0c6f9e-2d1b-4c8e-9a3f-7b6d5e4c3a21',
    });
  }
  for (const [code, response] of Object.entries(op.responses ?? {})) {
    if (!/^2\d\d$/.test(code)) continue;
    response.headers = {
      ...(response.headers ?? {}),
      'Idempotent-Replayed': {
        description:
          '`true` when this answer is the stored answer of an earlier request with the same `Idempotency-Key`',
        schema: { type: 'string', enum: ['true'] },
      },
    };
  }
}

const API_DESCRIPTION = `Multi-company, multi-currency accounting and group consolidation (ASC 810, ASC 830).

**Authentication.** \`POST /api/auth/login\` answers a session token (valid 7 days); send it as
\`Authorization: Bearer <token>\` on every other request under \`/api/v1\` and \`/api/auth\`.

**Organizations and roles.** Every resource belongs to one organization. Members have one role: \`viewer\`
(reads), \`member\` (writes journal entries and everyday data), \`admin\` (configuration, consolidation,
members) or \`owner\`. A resource of an organization you do not belong to answers \`403 ForbiddenError\`
when addressed by its own id, and its \`NotFound\` tag when it is only referenced; an unknown id answers its
\`NotFound\` tag.

**Money and dates.** Amounts are objects \`{value, currency}\` whose \`value\` is a decimal string with at most
the currency's minor-unit digits (\`"1250.00"\` USD, \`"1250"\` JPY); they are never JSON numbers. Exchange
rates and percentages are decimal strings too. Dates are \`YYYY-MM-DD\`; timestamps are UTC ISO 8601.
Results of conversions are rounded half away from zero to the currency's minor units.

**Lists.** Paginated lists take \`limit\` (1–100, default 50) and \`offset\` (default 0) and answer
\`{<items>, total, limit, offset}\` in a documented total order. The journal-entry, audit-log and
intercompany lists also take \`after\`, the \`nextCursor\` of the previous page, which never skips or repeats
an item while others are being written.

**Strict input.** Bodies, headers and query parameters are validated before anything runs: an unknown,
repeated or empty query parameter, a malformed value or a missing field answers \`400 ValidationError\`
whose \`issues\` name each problem (\`/query/<name>\`, \`/headers/<Name>\` or a JSON Pointer into the body).

**Idempotency.** Every \`POST\` under \`/api/v1\` accepts an \`Idempotency-Key\` header: a retry with the same
key and request answers the stored result with \`Idempotent-Replayed: true\`; see the header's description.

**Errors.** Every error answer is a JSON object \`{_tag, message, ...fields}\`; clients discriminate on
\`_tag\` (\`message\` is for people and may change). Each operation lists the tags its statuses can carry.
The whole catalogue:

`;

/** The API description: conventions and a table of every error tag with its status and fields. */
export function apiDescription(): string {
  const rows = Object.entries(ERROR_CATALOGUE)
    .sort(([a, x], [b, y]) => x.status - y.status || a.localeCompare(b))
    .map(
      ([tag, info]) =>
        `| \`${tag}\` | ${info.status} | ${info.fields.map((f) => `\`${f[0]}\``).join(', ') || '—'} |`,
    );
  return `${API_DESCRIPTION}| Tag | Status | Fields besides \`_tag\` and \`message\` |\n|---|---|---|\n${rows.join('\n')}\n`;
}
