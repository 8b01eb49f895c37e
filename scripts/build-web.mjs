/**
 * Builds the web console (web/) into dist/web with Vite, then writes gzip and brotli copies of the
 * text assets beside them, which the service sends to browsers that accept them (src/http/console.ts).
 * Used by scripts/build.mjs (`npm run build`, `npm start`) and by the browser tests, which rebuild
 * only when a file under web/ is newer than the last build (`consoleIsStale`).
 */
import { readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const consoleSource = join(root, 'web');
export const consoleOut = join(root, 'dist', 'web');
const STAMP = '.build-stamp';

function files(dir) {
  const out = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...files(path));
    else out.push(path);
  }
  return out;
}

/** True when dist/web is missing or older than a file of web/ (or of the build configuration). */
export function consoleIsStale() {
  let built;
  try {
    built = statSync(join(consoleOut, STAMP)).mtimeMs;
  } catch {
    return true;
  }
  const inputs = [...files(consoleSource), join(root, 'package-lock.json'), fileURLToPath(import.meta.url)];
  return inputs.some((f) => statSync(f).mtimeMs > built);
}

function precompress(dir) {
  for (const file of files(dir)) {
    if (!/\.(js|css|html|svg|json)$/.test(file)) continue;
    const content = readFileSync(file);
    if (content.length < 1024) continue;
    writeFileSync(`${file}.gz`, gzipSync(content, { level: 9 }));
    writeFileSync(
      `${file}.br`,
      brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 10 } }),
    );
  }
}

export async function buildConsole({ logLevel = 'warn' } = {}) {
  const { build } = await import('vite');
  // Built beside and then moved into place, so that a service starting meanwhile (another test)
  // sees either the previous build or the new one, never half of one.
  const staging = `${consoleOut}.${process.pid}`;
  // Always React's production build, also when the caller runs with NODE_ENV=test (vitest), which
  // Vite would otherwise pass on to the bundle.
  const nodeEnv = process.env.NODE_ENV;
  process.env.NODE_ENV = 'production';
  try {
    await build({
      configFile: join(consoleSource, 'vite.config.ts'),
      mode: 'production',
      logLevel,
      clearScreen: false,
      build: { outDir: staging, emptyOutDir: true },
    });
  } finally {
    if (nodeEnv === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = nodeEnv;
  }
  precompress(staging);
  writeFileSync(join(staging, STAMP), new Date().toISOString());
  rmSync(consoleOut, { recursive: true, force: true });
  renameSync(staging, consoleOut);
}
