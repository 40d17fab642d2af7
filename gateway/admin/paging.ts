// The page a list query asks for. The query's schema (schemas/paging.ts) has checked its form.
import type { PageRequest } from '../store/types.js';
import { DEFAULT_PAGE_SIZE, type PageQuery } from './schemas/paging.js';

export function pageRequest(query: PageQuery): PageRequest {
  return { limit: query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit), cursor: query.cursor };
}
