/**
 * `npm run build` (run by `npm start`): bundles the service into `dist/server.mjs` with esbuild,
 * copies the SQL migrations beside it and builds the web console into `dist/web` (build-web.mjs). One file of plain JavaScript starts several times faster than
 * hundreds of TypeScript modules and package files resolved one by one at start-up.
 *
 * Left outside the bundle: PGlite (it loads its WebAssembly and data files next to its own module),
 * swagger-ui (serves its static files from its package directory) and pg's optional native binding.
 */
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { buildConsole } from './build-web.mjs';

/**
 * `pg` asks, while its modules load, whether it runs on Cloudflare Workers: on Node.js 20 (no
 * `navigator` global) by constructing a `Response`, which makes Node load its whole fetch
 * implementation (undici) at start-up, about a tenth of the embedded server's start. The bundle only
 * ever runs on Node.js, so the question is answered here.
 */
const nodeOnlyPg = {
  name: 'node-only-pg',
  setup(b) {
    b.onLoad({ filter: /[\\/]pg[\\/]lib[\\/]stream\.js$/ }, (args) => {
      const source = readFileSync(args.path, 'utf8');
      const answered = source.replace(
        'function isCloudflareRuntime() {',
        'function isCloudflareRuntime() {\n  return false;',
      );
      if (answered === source) throw new Error(`build: isCloudflareRuntime not found in ${args.path}`);
      return { contents: answered, loader: 'js' };
    });
  },
};

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
  // V8 keeps the bundle's source in the heap for as long as the process runs: without whitespace and
  // comments it is 5.6 MB of one-byte text, where comments with characters outside Latin-1 had made
  // the whole 8.5 MB a two-byte string of 16 MB. Names are kept (stack traces, plugin names).
  minifyWhitespace: true,
  external: ['@electric-sql/pglite', '@fastify/swagger-ui', 'pg-native'],
  // CommonJS packages inside an ES module bundle still call require() for Node built-ins.
  banner: {
    js: "import { createRequire as __groupbookRequire } from 'node:module';\nconst require = __groupbookRequire(import.meta.url);",
  },
  logLevel: 'warning',
  plugins: [nodeOnlyPg],
});
cpSync(join(root, 'src/db/migrations'), join(dist, 'migrations'), { recursive: true });
await buildConsole();
