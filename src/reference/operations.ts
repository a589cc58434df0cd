// The operations of an OpenAPI 3 (or Swagger 2) document, reduced to what hostctl uses:
// calling one by name (method, path, path parameters) and telling what changed between two
// versions (parameters, response media types). Kept in the state dir in this form.

import { ApiError } from '../errors.js';
import { oneLine, sanitize } from '../output/sanitize.js';
import { isRecord, stringList } from '../json/narrow.js';

export interface Parameter {
  name: string;
  /** path, query, header or cookie (Swagger 2's body and formData too). */
  in: string;
  required: boolean;
}

export interface Operation {
  operationId: string | null;
  method: string;
  /** Relative to the base URL where it lies under it, so that `hostctl api <path>` takes it as is. */
  path: string;
  /** False for a path outside the base URL: it is then absolute on the base URL's origin. */
  underBase: boolean;
  summary: string;
  parameters: Parameter[];
  /** `status media/type`, sorted: what each response may be sent as. */
  responses: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

/** Follows a local `$ref` (`#/components/parameters/x`), once per level, at most 10 deep. */
function deref(doc: Record<string, unknown>, v: unknown): unknown {
  for (let depth = 0; depth < 10 && isRecord(v) && typeof v.$ref === 'string'; depth++) {
    const ref = v.$ref;
    if (!ref.startsWith('#/')) return undefined;
    let node: unknown = doc;
    for (const raw of ref.slice(2).split('/')) {
      const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
      node = isRecord(node) ? node[key] : undefined;
    }
    v = node;
  }
  return v;
}

export function isOpenApi(doc: unknown): doc is Record<string, unknown> {
  return isRecord(doc) && isRecord(doc.paths);
}

/** The operations of an OpenAPI document: paths in the document's order, methods in METHODS order. */
export function extractOperations(doc: unknown, docUrl: URL, base: URL): Operation[] {
  if (!isRecord(doc) || !isRecord(doc.paths)) {
    throw new ApiError(
      `The reference at ${docUrl.href} is JSON but not an OpenAPI document (it has no "paths").`,
      'See it whole with: hostctl api /docs',
    );
  }
  const prefix = serverPath(doc, docUrl);
  const basePath = base.pathname.replace(/\/+$/, '');
  const produces = stringList(doc.produces);
  const ops: Operation[] = [];
  for (const [template, rawItem] of Object.entries(doc.paths)) {
    const item = deref(doc, rawItem);
    if (!isRecord(item)) continue;
    let path = `${prefix ?? ''}/${template.replace(/^\/+/, '')}`;
    // A document that names no server is taken as relative to the base URL, as generated
    // references often are; one whose server is elsewhere on the origin is not.
    let underBase = basePath === '' || prefix === undefined;
    if (basePath && (path === basePath || path.startsWith(`${basePath}/`))) {
      path = path.slice(basePath.length) || '/';
      underBase = true;
    }
    const shared = parametersOf(doc, item.parameters);
    for (const method of METHODS) {
      const op = item[method];
      if (!isRecord(op)) continue;
      const description = typeof op.description === 'string' ? (op.description.trim().split('\n')[0] ?? '') : '';
      // An operation's own parameter replaces the path item's of the same name and place.
      const own = parametersOf(doc, op.parameters);
      const parameters = [...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)), ...own];
      ops.push({
        operationId: typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : null,
        method: method.toUpperCase(),
        path,
        underBase,
        summary: typeof op.summary === 'string' ? op.summary : description,
        parameters,
        responses: responsesOf(doc, op.responses, op.produces !== undefined ? stringList(op.produces) : produces),
      });
    }
  }
  return ops;
}

function parametersOf(doc: Record<string, unknown>, raw: unknown): Parameter[] {
  if (!Array.isArray(raw)) return [];
  const out: Parameter[] = [];
  for (const p of raw) {
    const param = deref(doc, p);
    if (!isRecord(param) || typeof param.name !== 'string' || typeof param.in !== 'string') continue;
    out.push({ name: param.name, in: param.in, required: param.required === true || param.in === 'path' });
  }
  return out;
}

function responsesOf(doc: Record<string, unknown>, raw: unknown, produces: string[]): string[] {
  if (!isRecord(raw)) return [];
  const out = new Set<string>();
  for (const [status, r] of Object.entries(raw)) {
    const response = deref(doc, r);
    if (!isRecord(response)) continue;
    // OpenAPI 3 names the media types per response; Swagger 2 names them once (produces).
    const types = isRecord(response.content) ? Object.keys(response.content) : response.schema !== undefined ? produces : [];
    for (const t of types) out.add(`${status} ${t}`);
  }
  return [...out].sort();
}

/** The path the document's paths hang from: servers[0].url (OpenAPI 3) or basePath (Swagger 2); undefined when it names none. */
function serverPath(doc: Record<string, unknown>, docUrl: URL): string | undefined {
  let raw: string | undefined;
  if (Array.isArray(doc.servers) && isRecord(doc.servers[0]) && typeof doc.servers[0].url === 'string') {
    const server = doc.servers[0];
    const vars = isRecord(server.variables) ? server.variables : {};
    raw = (server.url as string).replace(/\{([^}]*)\}/g, (_m, name: string) => {
      const v = vars[name];
      return isRecord(v) && typeof v.default === 'string' ? v.default : '';
    });
  } else if (typeof doc.basePath === 'string') {
    raw = doc.basePath;
  }
  if (raw === undefined) return undefined;
  try {
    return new URL(raw, docUrl).pathname.replace(/\/+$/, '');
  } catch {
    return '';
  }
}

/** A name or path from the reference, as it may appear in a message: it is server data, and may be hostile. */
export function shown(text: string): string {
  return oneLine(sanitize(text), 120);
}

/** The `{name}`s of a path template, in order. */
function templateNames(path: string): string[] {
  return [...path.matchAll(/\{([^{}]+)\}/g)].map((m) => m[1]!);
}

/** The path parameters an operation needs: those it declares and those its template names. */
export function pathParameters(op: Operation): string[] {
  const names = templateNames(op.path);
  for (const p of op.parameters) if (p.in === 'path' && !names.includes(p.name)) names.push(p.name);
  return names;
}

/** The template with each `{name}` replaced by its value, percent-encoded as one segment. */
export function fillPath(template: string, values: ReadonlyMap<string, string>): string {
  return template.replace(/\{([^{}]+)\}/g, (m, name: string) => {
    const v = values.get(name);
    return v === undefined ? m : encodeURIComponent(v);
  });
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_v, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diag = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j]!;
      row[j] = Math.min(up + 1, row[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return row[b.length]!;
}

/** Up to `max` names close to `name`: by edit distance (case ignored), or containing it. */
export function closestNames(name: string, names: readonly string[], max = 3): string[] {
  const want = name.toLowerCase();
  const limit = Math.max(2, Math.floor(want.length / 3));
  return names
    .map((n) => {
      const lower = n.toLowerCase();
      const d = distance(want, lower);
      return { n, score: d <= limit ? d : lower.includes(want) || (want.length >= 4 && want.includes(lower)) ? limit + 1 : Infinity };
    })
    .filter((c) => c.score !== Infinity)
    .sort((a, b) => a.score - b.score || a.n.localeCompare(b.n))
    .slice(0, max)
    .map((c) => c.n);
}
