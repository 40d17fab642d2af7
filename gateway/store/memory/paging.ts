// Pages of the embedded store's lists: its maps are unordered, so each page sorts the ids.
import { decodeCursor } from '../page-cursor.js';
import type { PageRequest } from '../types.js';

/** Up to limit + 1 ids after the page's cursor, in id order (the extra one says more follow). */
export function idsAfter(ids: Iterable<string>, page: PageRequest): string[] {
  const after = decodeCursor(page.cursor);
  const sorted = [...ids].filter((id) => after === undefined || id > after).sort();
  return sorted.slice(0, page.limit + 1);
}
