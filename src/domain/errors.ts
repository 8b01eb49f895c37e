/**
 * Domain errors: every refusal of the API is a DomainError carrying its `_tag`, HTTP status
 * and extra fields. The HTTP layer renders them as `{_tag, message, ...fields}`.
 */
export type ErrorFields = Record<string, unknown>;

export class DomainError extends Error {
  readonly tag: string;
  readonly status: number;
  readonly fields: ErrorFields;
  readonly headers: Record<string, string> | undefined;

  constructor(
    status: number,
    tag: string,
    message: string,
    fields: ErrorFields = {},
    headers?: Record<string, string>,
  ) {
    super(message);
    this.name = tag;
    this.tag = tag;
    this.status = status;
    this.fields = fields;
    this.headers = headers;
  }

  toBody(): Record<string, unknown> {
    return { _tag: this.tag, message: this.message, ...this.fields };
  }
}

export interface Issue {
  path: string;
  message: string;
}

export class ValidationError extends DomainError {
  readonly issues: Issue[];
  constructor(issues: Issue[], message = 'Request validation failed') {
    super(400, 'ValidationError', message, { issues });
    this.issues = issues;
  }
}

/** Shorthand for a one-issue ValidationError. */
export function invalid(path: string, message: string): ValidationError {
  return new ValidationError([{ path, message }]);
}

/**
 * Refuses an update that sends a field which cannot change with another value than the stored one: one
 * issue per such field, at `/<field>`, worded by `message` (the wording each resource has always used).
 */
export function checkUnchanged(
  fields: Record<string, { sent: unknown; stored: unknown }>,
  message: (field: string) => string,
): void {
  const issues = Object.entries(fields)
    .filter(([, { sent, stored }]) => sent !== undefined && sent !== stored)
    .map(([field]) => ({ path: `/${field}`, message: message(field) }));
  if (issues.length > 0) throw new ValidationError(issues);
}
