/**
 * The Node.js arguments `npm start` runs the service with (after building it): read from the `start`
 * script of package.json, so that the benchmark and the crash test start the server exactly as
 * `npm start` does (same V8 options), with one place to change them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** E.g. `['--max-semi-space-size=8', 'dist/server.mjs']` for `… && node --max-semi-space-size=8 dist/server.mjs`. */
export function startArgs(root: string): string[] {
  const { scripts } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts?: Record<string, string>;
  };
  const m = /(?:^|&& *)node ((?:--\S+ +)*)(dist\/server\.mjs)\s*$/.exec(scripts?.start ?? '');
  if (!m) throw new Error('package.json: the start script does not end in `node [options] dist/server.mjs`');
  return [...(m[1] ?? '').split(/ +/).filter(Boolean), 'dist/server.mjs'];
}
