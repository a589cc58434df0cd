// Response bodies: plain JSON (bare arrays and objects), JSON-LD with a hydra-style
// collection, and application/problem+json errors. Objects are spliced in from their
// stored JSON text, never re-serialised per request.

import type { Resource } from '../resources.js';
import type { ApiFormat } from './negotiate.js';
import type { Item } from './collections.js';

const CONTEXT = JSON.stringify({ '@vocab': '/v1/docs#', hydra: 'http://www.w3.org/ns/hydra/core#' });

export function typeName(resource: Resource): string {
  return resource.singular.replace(/(^|\s)(\w)/g, (_m, _s: string, c: string) => c.toUpperCase());
}

function objectPath(resource: Resource, id: string): string {
  return `/v1${resource.path}/${encodeURIComponent(id)}`;
}

function ldMember(resource: Resource, item: Item, withContext: boolean): string {
  const head = `${withContext ? `"@context":${CONTEXT},` : ''}"@id":${JSON.stringify(objectPath(resource, item.id))},"@type":${JSON.stringify(typeName(resource))}`;
  return item.json === '{}' ? `{${head}}` : `{${head},${item.json.slice(1)}`;
}

export function renderObject(resource: Resource, item: Item, format: ApiFormat): string {
  return format === 'json' ? item.json : ldMember(resource, item, true);
}

export interface PageView {
  /** The collection's path, e.g. /v1/apps or /v1/environments/en-…/deployments. */
  readonly path: string;
  readonly page: number;
  readonly lastPage: number;
  /** Query parameters other than `page`, kept in every view link. */
  readonly otherParams: string;
}

function pageLink(view: PageView, page: number): string {
  const params = [view.otherParams, `page=${page}`].filter(Boolean).join('&');
  return `${view.path}?${params}`;
}

export function renderCollection(resource: Resource, items: readonly Item[], total: number, format: ApiFormat, id: string, view: PageView | undefined): string {
  if (format === 'json') return `[${items.map((i) => i.json).join(',')}]`;
  const members = items.map((i) => ldMember(resource, i, false)).join(',');
  let out = `{"@context":${CONTEXT},"@id":${JSON.stringify(id)},"@type":"hydra:Collection","hydra:totalItems":${total},"hydra:member":[${members}]`;
  if (view) {
    const v: Record<string, string> = {
      '@id': pageLink(view, view.page),
      '@type': 'hydra:PartialCollectionView',
      'hydra:first': pageLink(view, 1),
      'hydra:last': pageLink(view, view.lastPage),
    };
    if (view.page > 1) v['hydra:previous'] = pageLink(view, Math.min(view.page - 1, view.lastPage));
    if (view.page < view.lastPage) v['hydra:next'] = pageLink(view, view.page + 1);
    out += `,"hydra:view":${JSON.stringify(v)}`;
  }
  return `${out}}`;
}

export interface Problem {
  readonly status: number;
  readonly title: string;
  readonly detail: string;
  /** A fragment of /v1/docs that explains the error. */
  readonly type: string;
}

export function problem(status: number, type: string, title: string, detail: string): Problem {
  return { status, type, title, detail };
}

export function renderProblem(p: Problem): string {
  return JSON.stringify({ type: `/v1/docs#error-${p.type}`, title: p.title, status: p.status, detail: p.detail });
}
