/**
 * The console's build: a React single-page application bundled into `dist/web`, which the service
 * serves at `/` (src/http/console.ts). `npm run build` and `npm start` run it through
 * scripts/build.mjs; `npm run web:dev` serves it with hot reload and forwards `/api` to a service on
 * port 3000.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // One chunk per screen is loaded on demand; the shell stays small.
    chunkSizeWarningLimit: 400,
  },
  server: {
    proxy: { '/api': process.env.GROUPBOOK_API ?? 'http://127.0.0.1:3000' },
  },
});
