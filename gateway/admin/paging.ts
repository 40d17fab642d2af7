// Admin lists come in pages (DESIGN 4): `limit` (default 100, at most 1000) and the opaque `cursor`
// of the previous page's `next_cursor` (null at the end). A list never loads every record at once.
import { invalidField } from '../errors.js';
import type { PageRequest } from '../store/types.js';

export const DEFAULT_PAGE_SIZE = 100;
export const MAX_PAGE_SIZE = 1000;
const CURSOR = /^[A-Za-z0-9_.:-]{1,512}$/;

/** The page a list query asks for; `extra` names the other query parameters the route accepts. */
export function pageRequest(query: unknown, extra: readonly string[] = []): PageRequest & Record<string, string | number | undefined> {
  const params = (query ?? {}) as Record<string, unknown>;
  const known = ['limit', 'cursor', ...extra];
  for (const name of Object.keys(params)) {
    if (!known.includes(name)) throw invalidField(name, `is not a known query parameter (known: ${known.join(', ')})`);
    if (typeof params[name] !== 'string') throw invalidField(name, 'must be given once');
  }
  const limitText = params.limit as string | undefined;
  let limit = DEFAULT_PAGE_SIZE;
  if (limitText !== undefined) {
    if (!/^[1-9]\d{0,5}$/.test(limitText) || Number(limitText) > MAX_PAGE_SIZE) throw invalidField('limit', `must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
    limit = Number(limitText);
  }
  const cursor = params.cursor as string | undefined;
  if (cursor !== undefined && !CURSOR.test(cursor)) throw invalidField('cursor', 'is not a cursor this API returned (use next_cursor of the previous page)');
  const rest = Object.fromEntries(extra.map((name) => [name, params[name] as string | undefined]));
  return { ...rest, limit, cursor };
}
