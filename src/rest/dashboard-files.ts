import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ErrorView } from './rest-views.ts';

/** The web dashboard's files: plain HTML, CSS and JavaScript modules, served as they are (no build step). */
export const DASHBOARD_ROOT = join(import.meta.dirname, '..', '..', 'web');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The page may load and call nothing but this server (no external resources, no inline scripts). */
const CSP = "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** A relative file path below the root: plain names only, no `..`, no hidden files. */
const SAFE_PATH = /^(?:[A-Za-z0-9_-][A-Za-z0-9_.-]*\/)*[A-Za-z0-9_-][A-Za-z0-9_.-]*$/;

/** GET / (the dashboard) and GET /web/<file> (its scripts and styles). */
export function registerDashboard(app: FastifyInstance, root: string = DASHBOARD_ROOT): void {
  const send = async (reply: FastifyReply, file: string) => {
    const type = TYPES[extname(file)];
    if (!SAFE_PATH.test(file) || file.split('/').some((p) => p.startsWith('.')) || !type) {
      return reply.code(404).send({ errors: [`no such file: ${file}`] } satisfies ErrorView);
    }
    let body: Buffer;
    try {
      body = await readFile(join(root, file));
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return reply.code(404).send({ errors: [`no such file: ${file}`] } satisfies ErrorView);
      throw e;
    }
    return reply
      .header('content-type', type)
      .header('cache-control', 'no-cache')
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', CSP)
      .send(body);
  };
  app.get('/', async (_req, reply) => send(reply, 'index.html'));
  app.get('/web/*', async (req, reply) => send(reply, (req.params as { '*': string })['*']));
}
