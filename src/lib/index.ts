// The package's library entry (`import { createClient } from 'hostctl'`, docs/library.md).
// Importing it starts nothing and prints nothing; what a call needs loads when it is made.

export { createClient } from './client.js';
export { HostctlError, type HostctlErrorFields } from './errors.js';
export { RESOURCE_FILTERS } from './types.js';
export type * from './types.js';
