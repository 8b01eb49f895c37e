/**
 * The shape of the code, kept by a test: no two folders of `src` import each other (a folder depends on
 * another, or is depended on by it, never both), so each module can be read, and changed, from its
 * imports down; and no file of `src` is over 600 lines, no function over 100 (what
 * `scripts/function-lengths.ts` lists), so that none has to be read as a whole to change a part.
 */
import { readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lineCount, longFunctions, sourceFiles } from '../../scripts/function-lengths.ts';

/** Folder → the other folders its files import (relative imports only). */
function folderImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of sourceFiles('src')) {
    const from = dirname(file);
    for (const m of readFileSync(file, 'utf8').matchAll(/from '(\.{1,2}\/[^']+)'/g)) {
      const to = dirname(normalize(join(from, m[1]!)));
      if (to === from) continue;
      const set = edges.get(from) ?? new Set<string>();
      set.add(to);
      edges.set(from, set);
    }
  }
  return edges;
}

describe('layers', () => {
  it('has no pair of folders that import each other', () => {
    const edges = folderImports();
    const pairs: string[] = [];
    for (const [a, targets] of edges) {
      for (const b of targets) if (a < b && edges.get(b)?.has(a)) pairs.push(`${a} <-> ${b}`);
    }
    expect(edges.size).toBeGreaterThan(10);
    expect(pairs).toEqual([]);
  });

  it('has no file over 600 lines and no function over 100 lines', () => {
    const files = sourceFiles('src');
    const long: string[] = [];
    for (const file of files) {
      const text = readFileSync(file, 'utf8');
      if (lineCount(text) > 600) long.push(`${file}: ${lineCount(text)} lines`);
      for (const f of longFunctions(file, text, 100))
        long.push(`${file}:${f.line} ${f.name}: ${f.lines} lines`);
    }
    expect(files.length).toBeGreaterThan(100);
    expect(long).toEqual([]);
  });
});
