/**
 * API features that arrive in later versions of the service, detected from its own OpenAPI document
 * (read once per session): the console uses them where they exist and does without where they do not.
 *
 * - `structure`: GET /api/v1/consolidation/groups/{id}/structure, the ownership tree of a group with
 *   `heldByCompanyId` on its members (without it: every member is drawn as held by the parent);
 * - `exports`: for each report path, the formats besides `json` its `format` parameter offers
 *   (CSV, XLSX …), shown as download buttons.
 */
export interface Features {
  structure: boolean;
  exports: Record<string, string[]>;
}

export const NONE: Features = { structure: false, exports: {} };

export type Doc = {
  paths?: Record<
    string,
    Record<string, { parameters?: Array<{ in: string; name: string; schema?: unknown }> }>
  >;
};

function enumValues(schema: unknown): string[] {
  if (!schema || typeof schema !== 'object') return [];
  const s = schema as { enum?: unknown[]; anyOf?: unknown[]; oneOf?: unknown[]; const?: unknown };
  if (Array.isArray(s.enum)) return s.enum.filter((v): v is string => typeof v === 'string');
  if (typeof s.const === 'string') return [s.const];
  return [...(s.anyOf ?? []), ...(s.oneOf ?? [])].flatMap(enumValues);
}

export function detectFeatures(doc: Doc): Features {
  const paths = doc.paths ?? {};
  const exports: Record<string, string[]> = {};
  for (const [path, item] of Object.entries(paths)) {
    const format = item.get?.parameters?.find((p) => p.in === 'query' && p.name === 'format');
    const values = enumValues(format?.schema).filter((v) => v !== 'json');
    if (values.length > 0) exports[path] = values;
  }
  return { structure: !!paths['/api/v1/consolidation/groups/{id}/structure']?.get, exports };
}
