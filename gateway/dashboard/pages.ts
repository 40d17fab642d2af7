// The dashboard's two HTML pages and its static assets (plain HTML, CSS and ES modules; no build).
// The app page goes only to a signed-in browser; anyone else is sent to sign-in.
import { join } from 'node:path';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fastifyStatic from '@fastify/static';
import type { DashboardAuth } from './session-auth.js';

export async function registerPages(app: FastifyInstance, auth: DashboardAuth, dashboardDir: string): Promise<void> {
  const pagesDir = join(dashboardDir, 'pages');
  await app.register(fastifyStatic, {
    root: join(dashboardDir, 'assets'),
    prefix: '/dashboard/assets/',
    index: false,
    list: false,
    dotfiles: 'deny',
    cacheControl: false,
  });

  app.get('/', async (_request, reply) => reply.redirect('/dashboard'));

  const sendApp = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!(await auth.sessionOf(request))) return reply.redirect('/dashboard/sign-in');
    return reply.header('cache-control', 'no-store').sendFile('app.html', pagesDir);
  };
  app.get('/dashboard', sendApp);
  app.get('/dashboard/', sendApp);

  app.get('/dashboard/sign-in', async (request, reply) => {
    if (await auth.sessionOf(request)) return reply.redirect('/dashboard');
    return reply.header('cache-control', 'no-store').sendFile('sign-in.html', pagesDir);
  });
}
