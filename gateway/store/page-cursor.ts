// The order of every paged list and its opaque cursor. Lists are newest first (by creation time in
// milliseconds, then by id as bytes, both descending), so an operator sees what was just made on
// top. The cursor is the base64url of the last listed entry's position ("<ms>.<id>"): a page starts
// after it, whatever was created or deleted in between.
import type { Page } from './types.js';

/** Where an entry stands in a list. */
export interface ListPosition {
  /** Its creation time, epoch milliseconds (the index's score on Redis). */
  createdMs: number;
  id: string;
}

/** The position of a record created at `createdAt` (ISO 8601); 0 for a time that does not parse. */
export function positionOf(id: string, createdAt: string): ListPosition {
  const createdMs = Date.parse(createdAt);
  return { createdMs: Number.isFinite(createdMs) ? createdMs : 0, id };
}

export function encodeCursor(last: ListPosition): string {
  return Buffer.from(`${last.createdMs}.${last.id}`, 'utf8').toString('base64url');
}

/** The position a page starts after; undefined for the first page, or for a cursor that is not ours (the list starts over). */
export function decodeCursor(cursor: string | undefined): ListPosition | undefined {
  if (cursor === undefined || cursor === '') return undefined;
  const match = /^(\d{1,16})\.(.+)$/s.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return match ? { createdMs: Number(match[1]), id: match[2]! } : undefined;
}

/** Negative when a comes before b in a list: newer first, then the greater id (as bytes). */
export function listOrder(a: ListPosition, b: ListPosition): number {
  if (a.createdMs !== b.createdMs) return b.createdMs - a.createdMs;
  return Buffer.compare(Buffer.from(b.id), Buffer.from(a.id));
}

/**
 * Builds a page from positions read in list order (at most limit + 1 of them: the extra one only
 * says that more follow) and the records found for the first `limit` (null: the record is gone).
 */
export function pageOf<T>(positions: readonly ListPosition[], records: (T | null)[], limit: number): Page<T> {
  const more = positions.length > limit;
  return {
    items: records.filter((r): r is T => r !== null),
    nextCursor: more ? encodeCursor(positions[limit - 1]!) : null,
  };
}
