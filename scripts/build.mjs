/**
 * `npm run build` (run by `npm start`): bundles the service into `dist/server.mjs` with esbuild,
 * copies the SQL migrations beside it and builds the web console into `dist/web` (build-web.mjs). One file of plain JavaScript starts several times faster than
 * hundreds of TypeScript modules and package files resolved one by one at start-up.
 *
 * Left outside the bundle: PGlite (it loads its WebAssembly and data files next to its own module),
 * swagger-ui (serves its static files from its package directory) and pg's optional native binding.
 */
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildConsole } from './build-web.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');

rmSync(dist, { recursive: true, force: true });
await build({
  entryPoints: [join(root, 'src/main.ts')],
  outfile: join(dist, 'server.mjs'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
  minifyWhitespace: true,
  external: ['@electric-sql/pglite', '@fastify/swagger-ui', 'pg-native'],
  // CommonJS packages inside an ES module bundle still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __groupbookRequire } from 'node:module';\nconst require = __groupbookRequire(import.meta.url);",
  },
  logLevel: 'warning',
});
cpSync(join(root, 'src/db/migrations'), join(dist, 'migrations'), { recursive: true });
await buildConsole();
