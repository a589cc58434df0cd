// What a response's Content-Type says it is (and, for HTML, what its text looks like).

export function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase();
}

export function isJsonType(contentType: string | undefined): boolean {
  const t = mediaType(contentType);
  return t === 'application/json' || t === 'text/json' || t.endsWith('+json');
}

export function isHtmlType(contentType: string | undefined): boolean {
  const t = mediaType(contentType);
  return t === 'text/html' || t === 'application/xhtml+xml';
}

/** Looks like HTML whatever the content type says (proxies and load balancers lie). */
export function looksLikeHtml(text: string): boolean {
  return /^\s*(<!doctype html|<html|<head|<body)/i.test(text);
}
