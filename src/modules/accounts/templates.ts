/**
 * Account templates: the built-in charts a company can start from, listed, read and applied.
 */
import { type Db, inTransaction } from '../../db/client.ts';
import { countRows, inOrg } from '../../db/rows.ts';
import { accounts } from '../../db/schema/index.ts';
import { DomainError } from '../../domain/errors.ts';
import {
  getTemplate,
  isTemplateType,
  listTemplates,
  type Template,
  type TemplateSummary,
  type TemplateType,
} from '../../domain/templates/index.ts';
import type { Access } from '../../access/access.ts';
import { auditWrite } from '../audit/service.ts';
import { type AppliedTemplate, insertTemplateAccounts, templateAuditChanges } from '../charts/templates.ts';
import { companyNotFound } from '../companies/lookup.ts';
import { lockCompany } from './hierarchy.ts';
import { errors } from '../../domain/error-catalogue.ts';

export function templateNotFound(templateType: string): DomainError {
  return errors.AccountTemplateNotFoundError('Unknown account template', { templateType });
}

export function listAccountTemplates(): { templates: TemplateSummary[] } {
  return { templates: listTemplates() };
}

export function getAccountTemplate(templateType: string): { template: Template } {
  if (!isTemplateType(templateType)) throw templateNotFound(templateType);
  return { template: getTemplate(templateType) };
}

/** POST /account-templates/{type}/apply: one `ApplyTemplate` audit entry on the company. */
export async function applyAccountTemplate(
  db: Db,
  access: Access,
  templateType: string,
  input: { organizationId: string; companyId: string },
): Promise<AppliedTemplate> {
  if (!isTemplateType(templateType)) throw templateNotFound(templateType);
  const type: TemplateType = templateType;
  const { organizationId, companyId } = input;
  await access.authorize(organizationId, 'account:manage');
  return inTransaction(db, async (tx) => {
    const company = await lockCompany(tx, organizationId, companyId, 'update');
    if (!company) throw companyNotFound(companyId);
    const accountCount = await countRows(tx, accounts, inOrg(accounts, organizationId, { companyId }));
    if (accountCount > 0) {
      throw errors.AccountsAlreadyExistError('The company already has accounts', {
        companyId,
        accountCount,
      });
    }
    const applied = await insertTemplateAccounts(tx, { organizationId, companyId, templateType: type });
    await auditWrite(
      tx,
      access,
      'Company',
      { organizationId, id: companyId },
      'ApplyTemplate',
      templateAuditChanges(type, applied.createdCount, company.retainedEarningsAccountId, applied),
    );
    return applied;
  });
}
