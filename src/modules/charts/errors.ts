/** The errors about accounts that both the company and the account endpoints report. */
import { DomainError } from '../../domain/errors.ts';
import { errors } from '../../domain/error-catalogue.ts';

export function invalidRetainedEarningsAccount(
  accountId: string | null,
  accountType: string,
  accountCategory: string,
): DomainError {
  return errors.InvalidRetainedEarningsAccountError(
    'The retained-earnings account must be an active, postable Equity / RetainedEarnings account',
    { accountId, accountType, accountCategory },
  );
}

export function accountNotFound(accountId: string): DomainError {
  return errors.AccountNotFoundError('Account not found', { accountId });
}
