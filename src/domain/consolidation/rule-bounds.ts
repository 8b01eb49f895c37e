/**
 * Bounds on the size of an elimination rule. Every selector of a rule is matched against every
 * account balance of the companies it names (all consolidated companies when it names none), once
 * per view, so a run's work grows with rules × selectors × accounts; these bounds keep one rule's
 * share of it small. The run itself executes in slices that yield to other requests, so even the
 * largest rule set allowed delays no request for long; the bounds keep a run's total time bounded.
 */

/** Trigger conditions of one rule. */
export const MAX_TRIGGER_CONDITIONS = 50;
/** Selectors in one list: a trigger condition's, the rule's source or target accounts. */
export const MAX_SELECTORS_PER_LIST = 100;
/**
 * Selectors of a rule's trigger conditions taken together. Fifty conditions of a hundred selectors
 * each (5,000) made one rule cost as much as a few thousand ordinary ones; real trigger conditions
 * name a handful of accounts each.
 */
export const MAX_TRIGGER_SELECTORS = 500;
