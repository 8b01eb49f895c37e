/** The errors about accounts that both the company and the account endpoints report. */
import { DomainError } from '../../domain/errors.ts';

export function invalidRetainedEarningsAccount(
  accountId: string | null,
  accountType: string,
  accountCategory: string,
): DomainError {
  return new DomainError(
    400,
    'InvalidRetainedEarningsAccountError',
    'The retained-earnings account must be an active, postable Equity / RetainedEarnings account',
    { accountId, accountType, accountCategory },
  );
}

export function accountNotFound(accountId: string): DomainError {
  return new DomainError(404, 'AccountNotFoundError', 'Account not found', { accountId });
}
