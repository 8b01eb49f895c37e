/**
 * Template `Manufacturing` — "Manufacturing" (95 accounts): the general business chart and the accounts
 * of a manufacturer (inventories by stage, production equipment, the cost of production), in number
 * order. Columns: number, name, type, category, parent, postable, cash-flow category, flag (see
 * `TemplateRow`).
 */
import { inNumberOrder } from './blocks.ts';
import { GENERAL_BUSINESS_ROWS } from './general-business.ts';
import type { TemplateRow } from './types.ts';

// One account per line.
// prettier-ignore
const MANUFACTURING_ACCOUNTS: readonly TemplateRow[] = [
  ['1210', 'Raw Materials Inventory', 'Asset', 'CurrentAsset', '1200', true, 'Operating', null],
  ['1220', 'Work-in-Process Inventory', 'Asset', 'CurrentAsset', '1200', true, 'Operating', null],
  ['1230', 'Finished Goods Inventory', 'Asset', 'CurrentAsset', '1200', true, 'Operating', null],
  ['1240', 'Manufacturing Supplies', 'Asset', 'CurrentAsset', '1200', true, null, null],
  ['1560', 'Manufacturing Equipment', 'Asset', 'FixedAsset', '1500', true, 'Investing', null],
  ['1650', 'Accumulated Depreciation - Manufacturing Equipment', 'Asset', 'FixedAsset', '1600', true, 'NonCash', null],
  ['5010', 'Raw Materials Used', 'Expense', 'CostOfGoodsSold', '5000', true, null, null],
  ['5020', 'Direct Labor', 'Expense', 'CostOfGoodsSold', '5000', true, null, null],
  ['5030', 'Manufacturing Overhead', 'Expense', 'CostOfGoodsSold', '5000', false, null, null],
  ['5031', 'Factory Rent', 'Expense', 'CostOfGoodsSold', '5030', true, null, null],
  ['5032', 'Factory Utilities', 'Expense', 'CostOfGoodsSold', '5030', true, null, null],
  ['5033', 'Factory Insurance', 'Expense', 'CostOfGoodsSold', '5030', true, null, null],
  ['5034', 'Factory Depreciation', 'Expense', 'CostOfGoodsSold', '5030', true, null, null],
  ['5035', 'Factory Supplies', 'Expense', 'CostOfGoodsSold', '5030', true, null, null],
  ['5036', 'Indirect Labor', 'Expense', 'CostOfGoodsSold', '5030', true, null, null],
  ['5040', 'Freight-In', 'Expense', 'CostOfGoodsSold', '5000', true, null, null],
  ['5050', 'Purchase Discounts', 'Expense', 'CostOfGoodsSold', '5000', true, null, null],
];

export const MANUFACTURING_ROWS: readonly TemplateRow[] = inNumberOrder([
  ...GENERAL_BUSINESS_ROWS,
  ...MANUFACTURING_ACCOUNTS,
]);
