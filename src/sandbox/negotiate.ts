// Content negotiation. The platform document fixes two cases: `Accept: application/json`
// gives plain JSON, no Accept header gives JSON-LD. Everything else follows the usual
// q-value rules, with JSON-LD as the server's own default (a bare `*/*` gets JSON-LD).

export type ApiFormat = 'json' | 'ld';

interface MediaRange {
  type: string;
  subtype: string;
  q: number;
}

function parseAccept(header: string): MediaRange[] {
  const out: MediaRange[] = [];
  for (const part of header.split(',')) {
    const [range, ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    if (!range) continue;
    const [type, subtype] = range.split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const p of params) {
      const m = /^q=([0-9.]+)$/.exec(p);
      if (m?.[1]) q = Math.min(1, Number(m[1]) || 0);
    }
    out.push({ type, subtype, q });
  }
  return out;
}

/** The q-value the most specific matching range gives `mediaType`, and how specific it was. */
function quality(ranges: readonly MediaRange[], mediaType: string): { q: number; specificity: number } {
  const [type, subtype] = mediaType.split('/');
  let best = { q: 0, specificity: 0 };
  for (const r of ranges) {
    const specificity = r.type === type && r.subtype === subtype ? 3 : r.type === type && r.subtype === '*' ? 2 : r.type === '*' && r.subtype === '*' ? 1 : 0;
    if (specificity > best.specificity) best = { q: r.q, specificity };
  }
  return best;
}

/** The representation of an API resource, or undefined when none is acceptable (406). */
export function chooseApiFormat(accept: string | undefined): ApiFormat | undefined {
  if (accept === undefined || accept.trim() === '') return 'ld';
  const ranges = parseAccept(accept);
  const json = quality(ranges, 'application/json');
  const ld = quality(ranges, 'application/ld+json');
  if (json.q === 0 && ld.q === 0) return undefined;
  if (json.q !== ld.q) return json.q > ld.q ? 'json' : 'ld';
  return json.specificity > ld.specificity ? 'json' : 'ld';
}

/** /v1/docs: the OpenAPI document when JSON is asked for by name, the HTML page otherwise. */
export function wantsOpenApiJson(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const json = [quality(ranges, 'application/json'), quality(ranges, 'application/vnd.oai.openapi+json')].filter((x) => x.specificity === 3 && x.q > 0);
  if (json.length === 0) return false;
  const html = quality(ranges, 'text/html');
  return Math.max(...json.map((x) => x.q)) >= html.q;
}
