// The library's public resource names and relation filters (src/lib/types.ts, which imports
// nothing so that its declarations ship as they are) are the resource table's: a resource
// or a filter added to src/resources.ts and not to the library's types fails here.

import { describe, expect, it } from 'vitest';
import { RESOURCES } from '../../src/resources.js';
import { RESOURCE_FILTERS } from '../../src/lib/types.js';

describe('the library\'s types', () => {
  it('name every resource of the table, with the relation filters its list takes, and nothing else', () => {
    const table = Object.fromEntries(RESOURCES.map((r) => [r.name, (r.relations ?? []).map((rel) => rel.flag)]));
    expect(RESOURCE_FILTERS).toEqual(table);
  });
});
