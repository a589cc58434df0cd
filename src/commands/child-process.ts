// node:child_process, which start-up must not load (it costs about as much as the rest of
// a command's start-up): `docs --open` imports it through this module, which the bundle
// defers until then. A static import of a built-in in a command file would load it on
// every run.
export { spawn } from 'node:child_process';
