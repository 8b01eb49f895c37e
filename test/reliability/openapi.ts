/**
 * The operations of the served OpenAPI document, as data for the reliability tests (fuzzing, tenant
 * isolation, roles): every test enumerates the document, so a new route is covered — or makes the
 * coverage check fail — without anyone remembering to add it.
 */
import type { TestContext } from '../helpers/app.ts';

export type JsonSchema = Record<string, any>;

export interface Operation {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** OpenAPI path with `{param}` placeholders, e.g. `/api/v1/journal-entries/{id}`. */
  path: string;
  /** `METHOD path`, the key used by the matrices. */
  key: string;
  pathParams: string[];
  query: Array<{ name: string; required: boolean; schema: JsonSchema }>;
  body: JsonSchema | null;
  bodyRequired: boolean;
  isPublic: boolean;
  /** The route's declared access (`x-access`): null on public operations. */
  access: { action: string | null; minimumRole: string | null } | null;
}

export async function loadOperations(t: TestContext): Promise<{ doc: any; operations: Operation[] }> {
  const res = await t.get('/api/openapi.json');
  if (res.status !== 200) throw new Error(`openapi: ${res.status}`);
  const doc = res.body;
  const resolve = (s: JsonSchema | undefined): JsonSchema | undefined => {
    if (!s || typeof s !== 'object') return s;
    if (typeof s.$ref === 'string') {
      const name = s.$ref.replace('#/components/schemas/', '');
      return resolve(doc.components?.schemas?.[name]);
    }
    return s;
  };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const [m, op] of Object.entries<any>(item)) {
      const method = m.toUpperCase() as Operation['method'];
      if (!['GET', 'POST', 'PUT', 'DELETE'].includes(method)) continue;
      const params = (op.parameters ?? []) as Array<{
        in: string;
        name: string;
        required?: boolean;
        schema: any;
      }>;
      const body = resolve(op.requestBody?.content?.['application/json']?.schema) ?? null;
      operations.push({
        method,
        path,
        key: `${method} ${path}`,
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params
          .filter((p) => p.in === 'query')
          .map((p) => ({ name: p.name, required: p.required === true, schema: resolve(p.schema) ?? {} })),
        body: body ? deref(body, resolve) : null,
        bodyRequired: op.requestBody?.required === true,
        isPublic: !op.security || op.security.length === 0,
        access: op['x-access'] ?? null,
      });
    }
  }
  return { doc, operations };
}

function deref(
  schema: JsonSchema,
  resolve: (s: JsonSchema) => JsonSchema | undefined,
  depth = 0,
): JsonSchema {
  if (depth > 20 || !schema || typeof schema !== 'object') return schema;
  const s = resolve(schema) ?? schema;
  const out: JsonSchema = Array.isArray(s) ? [] : {};
  for (const [k, v] of Object.entries(s)) {
    out[k] = v && typeof v === 'object' ? deref(v as JsonSchema, resolve, depth + 1) : v;
  }
  return out;
}

/** Fills `{param}` placeholders. */
export function fillPath(path: string, params: Record<string, string>): string {
  return path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const v = params[name];
    if (v === undefined) throw new Error(`no value for path parameter ${name} of ${path}`);
    return v;
  });
}
