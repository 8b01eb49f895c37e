/**
 * Schema validation with two Ajv instances: bodies, params and headers are validated exactly as sent
 * (no type coercion: `"12"` is not an integer, `12` is not a Money value); query strings are coerced
 * from text after `queryIssues` (body.ts) has refused non-decimal integers and repeated parameters.
 */

import { type SerializerFactory, SerializerSelector } from '@fastify/fast-json-stringify-compiler';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { type Issue, ValidationError } from '../domain/errors.ts';
import { semanticIssues } from './body.ts';

const addFormats = addFormatsModule as unknown as (ajv: Ajv, formats?: string[]) => Ajv;

function makeAjv(coerce: boolean): Ajv {
  const ajv = new Ajv({
    allErrors: true,
    strict: false,
    coerceTypes: coerce,
    useDefaults: coerce,
    removeAdditional: false,
  });
  addFormats(ajv, ['date', 'date-time']);
  return ajv;
}

const strictAjv = makeAjv(false);
const queryAjv = makeAjv(true);

const PART_PREFIX: Record<string, string> = {
  body: '',
  querystring: '/query',
  headers: '/headers',
  params: '',
};

function pointerEscape(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function issuesFromAjv(errors: ErrorObject[], part: string): Issue[] {
  const prefix = PART_PREFIX[part] ?? '';
  const seen = new Set<string>();
  const issues: Issue[] = [];
  // A nullable field reports its failing branches plus "must be null" and an anyOf summary; keep the
  // concrete failures when there are any at or below the same location.
  const isNoise = (e: ErrorObject) =>
    e.keyword === 'anyOf' || (e.keyword === 'type' && e.params.type === 'null');
  for (const e of errors) {
    if (
      isNoise(e) &&
      errors.some((o) => !isNoise(o) && (o.instancePath + '/').startsWith(e.instancePath + '/'))
    ) {
      continue;
    }
    let path = e.instancePath;
    if (e.keyword === 'required') path += `/${pointerEscape(String(e.params.missingProperty))}`;
    const full = prefix + path;
    const message =
      e.keyword === 'required'
        ? 'Required'
        : e.keyword === 'enum'
          ? `Must be one of: ${(e.params.allowedValues as unknown[]).slice(0, 12).join(', ')}`
          : (e.message ?? 'Invalid value');
    const key = `${full}\u0000${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push({ path: full, message });
  }
  return issues.length > 0 ? issues : [{ path: prefix, message: 'Invalid request' }];
}

/**
 * Compiles a route's schema on the route's first request rather than at start-up: the service has
 * well over a hundred route schemas and compiling them all up front dominated cold start, while a
 * process typically serves a small subset. Each validator is compiled once and then reused.
 */
export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const ajv = httpPart === 'querystring' ? queryAjv : strictAjv;
  let validate: ValidateFunction | undefined;
  return (data: unknown) => {
    validate ??= ajv.compile(schema as object);
    if (!validate(data)) {
      return { error: new ValidationError(issuesFromAjv(validate.errors ?? [], httpPart ?? 'body')) };
    }
    if (httpPart === 'body') {
      const issues = semanticIssues(schema as never, data);
      if (issues.length > 0) return { error: new ValidationError(issues) };
    }
    return { value: data };
  };
};

type Validation = { value?: unknown; error?: Error };

/**
 * A route-level validator for cross-field rules checked with the syntax checks:
 * the shared body validation, then `check` on the validated body, which throws (or returns) the error
 * to answer; any other return value means the body passed. Such refusals therefore come before idempotency and every organization check.
 */
export function withBodyCheck<T>(check: (body: T) => unknown): FastifySchemaCompiler<unknown> {
  return (route) => {
    const validate = validatorCompiler(route) as (data: unknown) => Validation;
    if (route.httpPart !== 'body') return validate;
    return (data: unknown): Validation => {
      const result = validate(data);
      if (result.error) return result;
      try {
        const outcome = check(data as T);
        return outcome instanceof Error ? { error: outcome } : result;
      } catch (err) {
        return { error: err as Error };
      }
    };
  };
}

/**
 * Fastify's own response serializers (fast-json-stringify), built on a route's first response with
 * that status instead of at start-up: compiling about 300 response schemas is most of the time
 * between `listen` and the first answer. The serialized output is unchanged.
 */
export function lazySerializerFactory(): SerializerFactory {
  const defaultFactory = SerializerSelector();
  return (externalSchemas, options) => {
    const compile = defaultFactory(externalSchemas, options);
    return (route) => {
      let serialize: ((data: unknown) => string) | undefined;
      return (data) => {
        serialize ??= compile(route);
        return serialize(data);
      };
    };
  };
}
