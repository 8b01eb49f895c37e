/**
 * Every error leaves the service as `{_tag, message, ...fields}` (contract 1.12): domain errors with
 * their tag, framework errors translated to the contract's tags, anything unexpected as a 500 with the
 * request id (never a stack trace, never an empty body).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isUnavailableError } from '../db/failover.ts';
import { DomainError, ValidationError } from '../domain/errors.ts';

export const MAX_BODY_BYTES = 1_048_576;

export function toDomainError(err: unknown, request: FastifyRequest): DomainError {
  if (err instanceof DomainError) return err;
  const fe = err as FastifyError & { validation?: unknown; cause?: unknown };
  if (fe?.cause instanceof DomainError) return fe.cause;
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new DomainError(413, 'PayloadTooLargeError', 'Request body larger than 1 MiB', {
        maxBytes: MAX_BODY_BYTES,
      });
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ValidationError([{ path: '', message: 'Content-Type must be application/json' }]);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ValidationError([{ path: '', message: 'Malformed JSON' }], 'Malformed JSON');
  }
  if (typeof fe?.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return new ValidationError([{ path: '', message: fe.message || 'Bad request' }]);
  }
  if (isUnavailableError(err)) {
    return new DomainError(
      503,
      'ServiceUnavailableError',
      'The database is unavailable',
      { requestId: request.id },
      { 'retry-after': '5' },
    );
  }
  return new DomainError(500, 'InternalServerError', 'Internal server error', { requestId: request.id });
}

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const domain = toDomainError(err, request);
  if (domain.status >= 500) {
    request.log.error({ err }, 'request failed');
  }
  if (domain.headers) reply.headers(domain.headers);
  return reply.code(domain.status).type('application/json; charset=utf-8').send(domain.toBody());
}
