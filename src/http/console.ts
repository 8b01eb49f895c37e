/**
 * The web console (web/, built into dist/web by `npm run build`) served by the same process at `/`.
 *
 * It is no API route: it registers no route of its own (the route table, the OpenAPI document and the
 * 404/405 answers of `/api` stay exactly as they are). A GET or HEAD of a path outside `/api` that no
 * route matches reaches the not-found handler, which asks `serve` here: a file of the build
 * (`/assets/index-1a2b3c.js`) is sent as it is, with a year of caching because its name carries its
 * content hash; any other path gets `index.html` (never cached), so that the console's client-side
 * routes (`/o/…/journal/…`) survive a reload or a shared link.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

export interface ConsoleServer {
  /** Answers the request when it is a console path; false when it is not (then: the API's 404). */
  serve(request: FastifyRequest, reply: FastifyReply): boolean;
}

/**
 * The built console next to the running code: `dist/web` beside the bundle `dist/server.mjs`, or,
 * when the service runs from the sources (`npm run dev`, the tests), `dist/web` of the repository.
 */
export function findConsoleDir(moduleUrl: string): string | null {
  const candidates = [new URL('./web/', moduleUrl), new URL('../dist/web/', moduleUrl)];
  for (const url of candidates) {
    const dir = fileURLToPath(url);
    if (existsSync(join(dir, 'index.html'))) return dir;
  }
  return null;
}

function listFiles(dir: string): Set<string> {
  const files = new Set<string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name);
      if (entry.isDirectory()) walk(path);
      else files.add(`/${relative(dir, path).split(sep).join('/')}`);
    }
  };
  walk(dir);
  return files;
}

export async function registerConsole(app: FastifyInstance, dir: string): Promise<ConsoleServer> {
  // Only reply.sendFile is used (serve: false): no route is added.
  await app.register(fastifyStatic, { root: dir, serve: false, preCompressed: true });
  const files = listFiles(dir);
  return {
    serve(request, reply) {
      if (request.method !== 'GET' && request.method !== 'HEAD') return false;
      const path = request.url.split('?', 1)[0]!;
      if (path === '/api' || path.startsWith('/api/')) return false;
      let decoded: string;
      try {
        decoded = decodeURIComponent(path);
      } catch {
        decoded = path;
      }
      if (files.has(decoded)) {
        // Hashed build assets never change under their name; the rest (favicon) is revalidated.
        const immutable = decoded.startsWith('/assets/');
        reply
          .code(200)
          .header('cache-control', immutable ? 'public, max-age=31536000, immutable' : 'no-cache');
        void reply.sendFile(decoded.slice(1), { cacheControl: false });
        return true;
      }
      // A missing asset is a 404, not the page (a script answered with HTML only confuses browsers).
      const last = decoded.slice(decoded.lastIndexOf('/') + 1);
      if (decoded.startsWith('/assets/') || last.includes('.')) return false;
      reply.code(200).header('cache-control', 'no-cache');
      void reply.sendFile('index.html', { cacheControl: false });
      return true;
    },
  };
}
