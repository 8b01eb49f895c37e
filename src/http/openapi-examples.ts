/**
 * The examples of the OpenAPI document, recorded from the service itself by `npm run docs:examples`
 * (scripts/openapi-examples.ts): the demo data set and one successful request of every other operation
 * are sent to an in-memory instance, and the requests and answers are stored in
 * `openapi-examples.json` with identifiers and timestamps replaced by stable ones. Keys as in
 * `operationKey`: `METHOD /path` with every path parameter written `{}`.
 */
import recorded from './openapi-examples.json' with { type: 'json' };

export interface RecordedOperation {
  /** The status of the recorded answer. */
  status: number;
  /** Query parameters of the recorded request. */
  query?: Record<string, string>;
  /** The JSON body of the recorded request. */
  request?: unknown;
  /** The JSON body of the recorded answer (absent for 204). */
  response?: unknown;
}

export interface RecordedExamples {
  operations: Record<string, RecordedOperation>;
  /** A recorded error body per `_tag`. */
  errors: Record<string, Record<string, unknown>>;
}

export const RECORDED_EXAMPLES = recorded as unknown as RecordedExamples;
