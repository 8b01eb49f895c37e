/**
 * The repository explains itself: code comments, OpenAPI descriptions and the docs never send the reader
 * to a document that is not in the repository (a "contract" file, numbered sections of an outside
 * specification, numbered decisions that docs/decisions.md does not have).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOTS = ['src', 'scripts', 'bench', 'clients/cli', 'web/src', 'docs'];
const FILES = ['README.md'];
const SKIP = new Set(['node_modules', 'dist', 'results', 'api']);

function files(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (SKIP.has(name)) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else if (/\.(ts|tsx|mts|md)$/.test(name)) out.push(path);
  }
  return out;
}

/** A section number such as 3.8.4 or 1.12, cited the way an outside specification is. */
const SECTION = String.raw`[1-4]\.\d{1,2}(?:\.\d{1,2})*`;
const CITATIONS = [
  new RegExp(String.raw`\bcontract (?:section |appendix |appendices )?(?:${SECTION}|\d|[A-C]\b)`, 'i'),
  new RegExp(String.raw`\((?:see )?${SECTION}(?: steps? \d+(?:[–-]\d+)?)?[,;:)]`),
  new RegExp(String.raw`\b(?:of|in|per) ${SECTION}\b(?!\.\d)`),
  /\bdecisions? \d{1,3}\b/,
  /\bAppendix [A-Z]\b/,
  /\b(?:ARCHITECTURE|service-spec|api-contract)\.md\b/,
];

describe('the repository stands on its own', () => {
  it('cites no section, appendix or decision number of a document outside the repository', () => {
    const offenders: string[] = [];
    for (const path of [...ROOTS.flatMap(files), ...FILES]) {
      readFileSync(path, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (CITATIONS.some((rx) => rx.test(line))) offenders.push(`${path}:${i + 1}: ${line.trim()}`);
        });
    }
    expect(offenders).toEqual([]);
  });
});
