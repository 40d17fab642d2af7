// Paged lists: the admin API reads clients and service accounts a page at a time, newest first
// (page-cursor.ts).

/** One page of a list, in a stable order; nextCursor is null on the last page. */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Where a page starts: after the cursor of the previous page (undefined for the first page). */
export interface PageRequest {
  limit: number;
  cursor?: string | undefined;
}
