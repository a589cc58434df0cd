// What the bundles have in place of the `debug` package (scripts/build.mjs aliases it here).
// A library's logger writes to stderr itself, around hostctl's sink, which masks the token
// and the Redis password: with DEBUG=ioredis:* the real one printed `hello 3 AUTH default
// <password>` and cached API data. So nothing a library logs is ever written, whatever
// DEBUG says; --verbose is hostctl's own trace, and goes through the sink.
'use strict';
/* global module */

function createDebug(namespace) {
  const debug = () => undefined;
  debug.namespace = namespace;
  debug.enabled = false;
  debug.log = () => undefined;
  debug.destroy = () => false;
  debug.extend = (sub, delimiter = ':') => createDebug(`${namespace}${delimiter}${sub}`);
  return debug;
}

createDebug.default = createDebug;
createDebug.debug = createDebug;
createDebug.enable = () => undefined;
createDebug.disable = () => '';
createDebug.enabled = () => false;
createDebug.coerce = (value) => value;
createDebug.formatters = {};
createDebug.names = [];
createDebug.skips = [];

module.exports = createDebug;
