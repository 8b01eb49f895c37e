/** The vocabulary of companies. */

/** Legal forms a company can declare. */
export const COMPANY_TYPES = [
  'Corporation',
  'LLC',
  'Partnership',
  'SoleProprietor',
  'NonProfit',
  'Trust',
  'Other',
] as const;
export type CompanyType = (typeof COMPANY_TYPES)[number];
