/**
 * Hand-written examples for the routes a new user calls first (the getting-started path). Every other
 * operation gets examples generated from its schemas (openapi.ts). Keys as in `operationKey`:
 * `METHOD /path` with every path parameter written `{}`.
 */

const ORG = '3f1c2a9e-7b4d-4e2a-9c1f-5a6b7c8d9e01';
const USER = '0b6e4f52-3c1d-4a8e-9f70-2d5c8b1a6e93';
const PARENT = '8a2b4c6d-1e3f-4a5b-8c7d-9e0f1a2b3c04';
const SUB = 'c5d6e7f8-9a0b-4c1d-8e2f-3a4b5c6d7e08';
const CASH = '5e0a9c3b-2d4f-4b6a-8e1c-7f9d0b2a4c61';
const RENT = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b62';
const GROUP = '6a7b8c9d-0e1f-4a2b-8c3d-4e5f6a7b8c95';
const SUB2 = 'e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a57';
const INVESTMENT = '4b3a2c1d-0e9f-4a8b-8c7d-6e5f4a3b2c10';
const LAND = 'f0e1d2c3-b4a5-4968-8778-695a4b3c2d1e';
const T = '2026-01-31T12:00:00.000Z';

export interface OperationExamples {
  request?: unknown;
  /** The success response (2xx). */
  response?: unknown;
}

const user = {
  id: USER,
  email: 'ann@example.com',
  displayName: 'Ann Example',
  createdAt: T,
  updatedAt: T,
};

export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  'POST /api/auth/register': {
    request: { email: 'ann@example.com', password: 'Secret-pass1', displayName: 'Ann Example' },
    response: { user },
  },
  'POST /api/auth/login': {
    request: { email: 'ann@example.com', password: 'Secret-pass1' },
    response: {
      token: 'gbk_2b7f0c1e9a8d4c3b5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b',
      user,
      provider: 'local',
      expiresAt: '2026-02-07T12:00:00.000Z',
    },
  },
  'POST /api/v1/organizations': {
    request: {
      name: 'Acme Group',
      reportingCurrency: 'USD',
      settings: { fiscalYearEnd: { month: 12, day: 31 }, requireApproval: false },
    },
    response: {
      id: ORG,
      name: 'Acme Group',
      reportingCurrency: 'USD',
      settings: {
        fiscalYearEnd: { month: 12, day: 31 },
        requireApproval: false,
        enforceSegregationOfDuties: false,
        defaultLocale: 'en-US',
        defaultTimezone: 'UTC',
      },
      createdAt: T,
      updatedAt: T,
    },
  },
  'POST /api/v1/companies': {
    request: {
      organizationId: ORG,
      name: 'Acme Europe',
      legalName: 'Acme Europe GmbH',
      jurisdiction: 'DE',
      functionalCurrency: 'EUR',
      reportingCurrency: 'USD',
      fiscalYearEnd: { month: 12, day: 31 },
      accountTemplate: 'GeneralBusiness',
    },
  },
  'POST /api/v1/exchange-rates': {
    request: {
      organizationId: ORG,
      fromCurrency: 'EUR',
      toCurrency: 'USD',
      rate: '1.0850000000',
      effectiveDate: '2026-01-31',
      rateType: 'Spot',
      source: 'Manual',
    },
  },
  'POST /api/v1/journal-entries': {
    request: {
      organizationId: ORG,
      companyId: PARENT,
      description: 'Office rent, January',
      transactionDate: '2026-01-31',
      referenceNumber: 'INV-1001',
      lines: [
        { accountId: RENT, debitAmount: { value: '2500.00', currency: 'USD' }, memo: 'Rent' },
        {
          accountId: CASH,
          creditAmount: { value: '2500.00', currency: 'USD' },
          memo: 'Paid from operating account',
        },
      ],
    },
  },
  'POST /api/v1/consolidation/groups': {
    request: {
      organizationId: ORG,
      name: 'Acme consolidated',
      reportingCurrency: 'USD',
      consolidationMethod: 'FullConsolidation',
      parentCompanyId: PARENT,
      members: [
        {
          companyId: SUB,
          ownershipPercentage: '80.00',
          consolidationMethod: 'FullConsolidation',
          acquisitionDate: '2026-01-01',
        },
      ],
    },
  },
  'POST /api/v1/consolidation/groups/{}/members': {
    // Acme Europe (held by the parent) buys 60 % of another company for €900,000; its land is worth
    // €25,000 more than its carrying amount; the NCI is measured at its share of the net assets.
    request: {
      companyId: SUB2,
      heldByCompanyId: SUB,
      ownershipPercentage: '60.00',
      consolidationMethod: 'FullConsolidation',
      acquisitionDate: '2026-06-01',
      acquisition: {
        consideration: { value: '900000.00', currency: 'EUR' },
        investmentAccountId: INVESTMENT,
        nciMeasurement: 'Proportionate',
        fairValueAdjustments: [{ accountId: LAND, amount: '25000.00' }],
      },
    },
  },
  'PUT /api/v1/consolidation/groups/{}/members/{}': {
    // Measure the NCI at its fair value instead (full goodwill).
    request: {
      acquisition: {
        consideration: { value: '900000.00', currency: 'EUR' },
        investmentAccountId: INVESTMENT,
        nciMeasurement: 'FairValue',
        nciFairValue: { value: '610000.00', currency: 'EUR' },
        fairValueAdjustments: [{ accountId: LAND, amount: '25000.00' }],
      },
    },
  },
  'POST /api/v1/consolidation/groups/{}/runs': {
    request: { periodRef: { year: 2026, period: 12 }, continueOnWarnings: true },
  },
  'POST /api/v1/intercompany-transactions': {
    request: {
      organizationId: ORG,
      fromCompanyId: PARENT,
      toCompanyId: SUB,
      transactionType: 'Sale',
      transactionDate: '2026-06-30',
      amount: { value: '12000.00', currency: 'USD' },
      description: 'Goods sold to Acme Europe',
    },
  },
  'POST /api/v1/elimination-rules': {
    request: {
      organizationId: ORG,
      consolidationGroupId: GROUP,
      name: 'Intercompany receivables and payables',
      eliminationType: 'IntercompanyReceivablesPayables',
      triggerConditions: [],
      sourceAccounts: [{ accountNumber: '1150', companyId: null }],
      targetAccounts: [{ accountNumber: '2050', companyId: null }],
      debitAccountId: '7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e44',
      creditAccountId: '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c55',
      isAutomatic: true,
      priority: 10,
    },
  },
};
