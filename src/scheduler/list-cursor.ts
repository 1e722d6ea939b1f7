// cron.list page cursors: the last listed job's name, and its owner too when the next page goes on within that name.
import { invalidParams } from '../errors.js';
import type { JobPageQuery, JobRecord } from '../store/index.js';

/** Job names never contain it (the name param refuses it, and PostgreSQL text cannot hold it), so it can end one. */
export const CURSOR_OWNER_SEPARATOR = '\u0000';

/**
 * One owner's names are unique, so its pages continue after a name. An admin's list holds every owner's jobs by
 * name then owner: when the page ends between two jobs of one name, the cursor also names the last one's owner.
 */
export function encodeJobCursor(last: JobRecord, next: JobRecord | undefined): string {
  return next?.name === last.name ? `${last.name}${CURSOR_OWNER_SEPARATOR}${last.ownerId}` : last.name;
}

export function decodeJobCursor(cursor: string): Pick<JobPageQuery, 'afterName' | 'afterOwnerId'> {
  const at = cursor.indexOf(CURSOR_OWNER_SEPARATOR);
  if (at === -1) return { afterName: cursor };
  const afterName = cursor.slice(0, at);
  const afterOwnerId = cursor.slice(at + 1);
  if (afterName === '' || afterOwnerId === '') throw invalidParams('cursor: not a cron.list cursor', 'cursor');
  return { afterName, afterOwnerId };
}
