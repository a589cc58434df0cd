// The IDs argument of `get` and `wait` (and what help shows of an ID); the check and the
// batched fetch of the IDs are the core's (src/core/by-id.ts).

import { Argument } from '@commander-js/extra-typings';
import { completes } from '../hints.js';
import type { Resource } from '../../resources.js';

/** How help shows one of `r`'s IDs: its prefix, or a placeholder. */
export function idHint(r: Resource): string {
  return r.prefix ? `${r.prefix}…` : '<publicId>';
}

/** The `<publicId...>` argument of get and wait, completed from `r`'s remembered IDs. */
export function idsArgument(r: Resource) {
  return completes(new Argument('<publicId...>', `public IDs (${idHint(r)})`), { ids: r.name });
}
