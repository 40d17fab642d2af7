// Pages of the embedded store's lists: its maps are unordered, so each page sorts the positions.
import { decodeCursor, listOrder, type ListPosition } from '../page-cursor.js';
import type { PageRequest } from '../types.js';

/** Up to limit + 1 positions after the page's cursor, in list order (the extra one says more follow). */
export function positionsAfter(positions: Iterable<ListPosition>, page: PageRequest): ListPosition[] {
  const after = decodeCursor(page.cursor);
  const sorted = [...positions].filter((p) => after === undefined || listOrder(after, p) < 0).sort(listOrder);
  return sorted.slice(0, page.limit + 1);
}
