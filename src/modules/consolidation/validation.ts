/**
 * Cross-field checks that the contract places in the syntax step (1.12.3 step 5, before idempotency
 * and any organization check): a route-level validator compiler that runs the shared schema validator
 * and then `check` on the (normalised) body. `check` throws the error to answer (a ValidationError or
 * a 400 tag "checked with the syntax checks", such as invalid selector patterns).
 */
import type { FastifySchemaCompiler } from 'fastify';
import { validatorCompiler } from '../../http/validation.ts';

type Result = { value?: unknown; error?: Error };

export function withBodyCheck<T>(check: (body: T) => void): FastifySchemaCompiler<unknown> {
  return (route) => {
    const validate = validatorCompiler(route) as (data: unknown) => Result;
    if (route.httpPart !== 'body') return validate;
    return (data: unknown): Result => {
      const result = validate(data);
      if (result.error) return result;
      try {
        check(data as T);
      } catch (err) {
        return { error: err as Error };
      }
      return result;
    };
  };
}
