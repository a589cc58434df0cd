// The note under a list that shows one page of several.

import type { Resource } from '../../resources.js';
import type { PageRest } from '../../http/paging.js';

/** "Showing 30 of 108 apps. Use --all for every page, or --page 2." when there is more. */
export function partialNote(resource: Resource, count: number, page: number, rest: PageRest): string | undefined {
  const more = `Use --all for every page, or --page ${page + 1}.`;
  if (rest.total !== undefined && page === 1) return rest.total > count ? `Showing ${count} of ${rest.total} ${resource.name}. ${more}` : undefined;
  if (rest.next) return `Showing ${count} ${resource.name}; there are more. ${more}`;
  // A bare array says nothing of what follows; a page of a round size may well be full.
  if (rest.full && count >= 10 && (count % 10 === 0 || count % 25 === 0)) return `Showing ${count} ${resource.name}; there may be more. ${more}`;
  return undefined;
}
