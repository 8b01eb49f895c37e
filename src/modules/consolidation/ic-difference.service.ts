/** The group's intercompany-difference setting: the account differences are booked on and the tolerance. */
import { type Db } from '../../db/client.ts';
import { anyRow, inOrg, sameRow, updateRow } from '../../db/rows.ts';
import { accounts, consolidationGroups } from '../../db/schema/index.ts';
import { invalid } from '../../domain/errors.ts';
import { minorUnits } from '../../domain/codes.ts';
import { dec, formatAmount, fractionDigits } from '../../domain/money.ts';
import type { Access } from '../../access/access.ts';
import { auditWrite } from '../audit/service.ts';
import { type GroupRow } from './groups.repo.ts';
import { authorizeGroup, writeGroup } from './groups.service.ts';
import { loadGroupAccounts } from './chart.service.ts';

export interface IcDifferenceSetting {
  consolidationGroupId: string;
  accountNumber: string | null;
  tolerance: string | null;
}

function settingOf(g: GroupRow): IcDifferenceSetting {
  return {
    consolidationGroupId: g.id,
    accountNumber: g.icDifferenceAccountNumber ?? null,
    tolerance:
      g.icDifferenceTolerance === null ? null : formatAmount(g.icDifferenceTolerance, g.reportingCurrency),
  };
}

export async function getIcDifferenceSetting(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
): Promise<IcDifferenceSetting> {
  return settingOf(await authorizeGroup(db, access, groupId, organizationId, 'consolidation:read'));
}

export async function setIcDifferenceSetting(
  db: Db,
  access: Access,
  groupId: string,
  organizationId: string | undefined,
  body: { accountNumber: string | null; tolerance?: string | null },
): Promise<IcDifferenceSetting> {
  return writeGroup(db, access, groupId, organizationId, async (tx, locked) => {
    const orgId = locked.organizationId;
    const number = body.accountNumber;
    let tolerance: string | null = null;
    if (number !== null) {
      if (body.tolerance === undefined || body.tolerance === null) {
        throw invalid('/tolerance', 'A tolerance is required with an account');
      }
      if (fractionDigits(body.tolerance) > minorUnits(locked.reportingCurrency)) {
        throw invalid(
          '/tolerance',
          `At most ${minorUnits(locked.reportingCurrency)} decimals for ${locked.reportingCurrency}`,
        );
      }
      tolerance = dec(body.tolerance).toFixed();
      const chart = await loadGroupAccounts(tx, orgId, locked.id);
      const known =
        chart.length > 0
          ? chart.some((a) => a.accountNumber === number)
          : await anyRow(
              tx,
              accounts,
              inOrg(accounts, orgId, { companyId: locked.parentCompanyId, accountNumber: number }),
            );
      if (!known) {
        throw invalid(
          '/accountNumber',
          chart.length > 0
            ? `${number} is not an account of the group chart`
            : `${number} is not an account of the parent company`,
        );
      }
    }
    const updated = await updateRow(tx, consolidationGroups, sameRow(consolidationGroups, locked), {
      icDifferenceAccountNumber: number,
      icDifferenceTolerance: tolerance,
      updatedAt: new Date(),
    });
    await auditWrite(tx, access, 'ConsolidationGroup', locked, 'Update', {
      icDifferenceAccountNumber: { from: locked.icDifferenceAccountNumber ?? null, to: number },
      icDifferenceTolerance: { from: locked.icDifferenceTolerance ?? null, to: tolerance },
    });
    return settingOf(updated);
  });
}
