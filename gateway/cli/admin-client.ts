// The CLI's connection to the admin API: where it is and which token to present.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CliError } from './cli-error.js';

export interface AdminConnection {
  url: string;
  token: string;
}

/** --admin-url / GATEWAY_ADMIN_URL, and --admin-token / GATEWAY_ADMIN_TOKEN / the development token file. */
export function adminConnection(options: { 'admin-url'?: string; 'admin-token'?: string }, env: NodeJS.ProcessEnv): AdminConnection {
  const url = (options['admin-url'] ?? env.GATEWAY_ADMIN_URL ?? `http://127.0.0.1:${env.GATEWAY_ADMIN_PORT ?? '8081'}`).replace(/\/+$/, '');
  let token = options['admin-token'] ?? env.GATEWAY_ADMIN_TOKEN;
  const file = join(env.GATEWAY_DATA_DIR ?? '.gateway', 'admin-token');
  if (!token && existsSync(file)) token = readFileSync(file, 'utf8').trim();
  if (!token)
    throw new CliError('No admin token: pass --admin-token, set GATEWAY_ADMIN_TOKEN, or run from the directory where the gateway keeps .gateway/admin-token.');
  return { url, token };
}

/** Calls the admin API; a non-2xx answer becomes a CliError with the gateway's message. */
export async function adminRequest<T>(connection: AdminConnection, method: string, path: string, body?: unknown): Promise<T> {
  let response: Response;
  try {
    response = await fetch(connection.url + path, {
      method,
      headers: { authorization: `Bearer ${connection.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch (error) {
    throw new CliError(
      `Cannot reach the admin API at ${connection.url}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`,
    );
  }
  const text = await response.text();
  const parsed = parseAnswer<T>(text, response.ok, connection.url);
  if (!response.ok) throw new CliError(`${response.status}${parsed.error ? ` ${parsed.error}` : ''}: ${parsed.message ?? text}`.trim());
  return parsed;
}

/** The answer's JSON; a non-JSON error page (a proxy's, say) is shown as its text. */
type Answer<T> = T & { error?: string; message?: string };

function parseAnswer<T>(text: string, ok: boolean, url: string): Answer<T> {
  if (!text) return {} as Answer<T>;
  try {
    return JSON.parse(text) as Answer<T>;
  } catch {
    if (ok) throw new CliError(`the admin API at ${url} answered with something other than JSON; is that URL the gateway's admin listener?`);
    return { message: text.trim().slice(0, 200) } as Answer<T>;
  }
}

/** Every item of a paged admin list, following next_cursor page by page (the gateway never sends them all at once). */
export async function allPages<T>(connection: AdminConnection, path: string, key: string, pageSize: number): Promise<T[]> {
  const items: T[] = [];
  let cursor: string | null = null;
  do {
    const query: string = `?limit=${pageSize}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`;
    const page: Record<string, unknown> = await adminRequest<Record<string, unknown>>(connection, 'GET', path + query);
    items.push(...(page[key] as T[]));
    cursor = (page.next_cursor as string | null | undefined) ?? null;
  } while (cursor !== null);
  return items;
}

/** --page-size: how many items each request asks for (1 to 1000, default 500). */
export function pageSize(value: unknown): number {
  if (value === undefined) return 500;
  const size = Number(value);
  if (typeof value !== 'string' || !/^\d+$/.test(value) || size < 1 || size > 1000) throw new CliError('--page-size must be a whole number from 1 to 1000');
  return size;
}
