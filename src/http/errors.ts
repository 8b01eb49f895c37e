/**
 * Every error leaves the service as `{_tag, message, ...fields}`: domain errors with
 * their tag, framework errors translated to the API's tags, anything unexpected as a 500 with the
 * request id (never a stack trace, never an empty body).
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { isUnavailableError } from '../db/failover.ts';
import { ClaimLostError } from '../db/commit-marks.ts';
import { isNumericOverflow, type MissingReference, missingReference } from '../db/constraint-errors.ts';
import { DomainError, ValidationError } from '../domain/errors.ts';
import { errors } from '../domain/error-catalogue.ts';

export const MAX_BODY_BYTES = 1_048_576;

export function toDomainError(err: unknown, request: FastifyRequest): DomainError {
  if (err instanceof DomainError) return err;
  const fe = err as FastifyError & { validation?: unknown; cause?: unknown };
  if (fe?.cause instanceof DomainError) return fe.cause;
  switch (fe?.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': {
      const limit = request.routeOptions?.bodyLimit ?? MAX_BODY_BYTES;
      const size = limit === MAX_BODY_BYTES ? '1 MiB' : `${limit / 1_048_576} MiB`;
      return errors.PayloadTooLargeError(`Request body larger than ${size}`, {
        maxBytes: limit,
      });
    }
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
  const lost = claimLost(err);
  if (lost) {
    return errors.IdempotencyKeyInProgressError('A request with this Idempotency-Key is running', {
      idempotencyKey: lost.claims[0]?.key ?? '',
    });
  }
  if (isNumericOverflow(err)) return amountOutOfRange();
  const missing = missingReference(err);
  const gone = missing && referenceGone(missing, request);
  if (gone) return gone;
  if (isUnavailableError(err)) {
    return errors.ServiceUnavailableError(
      'The database is unavailable',
      { requestId: request.id },
      { 'retry-after': '5' },
    );
  }
  return errors.InternalServerError('Internal server error', { requestId: request.id });
}

export function sendError(err: unknown, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const domain = toDomainError(err, request);
  if (domain.status >= 500) {
    request.log.error({ err }, 'request failed');
  }
  if (domain.headers) reply.headers(domain.headers);
  return reply.code(domain.status).type('application/json; charset=utf-8').send(domain.toBody());
}

/**
 * A figure the database cannot store (SQLSTATE 22003, e.g. an account balance summed past its 20
 * integer digits). Input amounts and derived line amounts are bounded before writing, so this is the
 * last line of defence for sums only; the transaction has been rolled back, nothing is half-written.
 */
export function amountOutOfRange(): DomainError {
  return errors.AmountOutOfRangeError(
    'The request would store an amount or a total beyond the range the ledger keeps (20 integer digits)',
    {},
  );
}

/**
 * A write refused because a row it references was deleted by a concurrent request (the checks before
 * the write still saw it): the answer is the one the request would have had a moment later, the
 * referenced resource's NotFound (for a journal line, the line's InvalidJournalLineAccountError).
 */
function referenceGone(missing: MissingReference, request: FastifyRequest): DomainError | null {
  const { key } = missing;
  const own = Object.entries(key).find(([c]) => c !== 'organization_id')?.[1];
  const organizationId = key.organization_id;
  switch (missing.referencedTable) {
    case 'organizations':
      return organizationId
        ? errors.OrganizationNotFoundError('Organization not found', { organizationId })
        : null;
    case 'companies':
      return own ? errors.CompanyNotFoundError('Company not found', { companyId: own }) : null;
    case 'accounts': {
      if (!own) return null;
      if (missing.table === 'journal_lines') {
        const lines = (request.body as { lines?: { accountId?: unknown }[] } | undefined)?.lines;
        const index = Array.isArray(lines) ? lines.findIndex((l) => l?.accountId === own) : -1;
        if (index >= 0) {
          return errors.InvalidJournalLineAccountError(`Line ${index + 1}: account is NotFound`, {
            lineNumber: index + 1,
            accountId: own,
            reason: 'NotFound',
          });
        }
      }
      return errors.AccountNotFoundError('Account not found', { accountId: own });
    }
    case 'journal_entries':
      return own ? errors.JournalEntryNotFoundError('Journal entry not found', { entryId: own }) : null;
    case 'consolidation_groups':
      return own
        ? errors.ConsolidationGroupNotFoundError('Consolidation group not found', {
            consolidationGroupId: own,
          })
        : null;
    case 'consolidation_runs':
      return own ? errors.ConsolidationRunNotFoundError('Consolidation run not found', { runId: own }) : null;
    default:
      return null;
  }
}

function claimLost(err: unknown): ClaimLostError | null {
  let e = err as { cause?: unknown } | undefined;
  for (let depth = 0; e && depth < 5; depth++) {
    if (e instanceof ClaimLostError) return e;
    e = e.cause as typeof e;
  }
  return null;
}
