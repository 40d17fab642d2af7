// The opaque cursor of a paged list: the base64url of the last id of the previous page. Lists are
// ordered by id, so a page starts after that id, whatever was created or deleted in between.
import type { Page } from './types.js';

export function encodeCursor(lastId: string): string {
  return Buffer.from(lastId, 'utf8').toString('base64url');
}

/** The id a page starts after; undefined for the first page. Any text decodes to some id (a bad cursor just starts elsewhere). */
export function decodeCursor(cursor: string | undefined): string | undefined {
  return cursor === undefined || cursor === '' ? undefined : Buffer.from(cursor, 'base64url').toString('utf8');
}

/**
 * Builds a page from ids read in order (at most limit + 1 of them: the extra one only says that
 * more follow) and the records found for the first `limit` ids (null: the record is gone).
 */
export function pageOf<T>(ids: string[], records: (T | null)[], limit: number): Page<T> {
  const more = ids.length > limit;
  return {
    items: records.filter((r): r is T => r !== null),
    nextCursor: more ? encodeCursor(ids[limit - 1]!) : null,
  };
}
