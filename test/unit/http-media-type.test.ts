// What a response's Content-Type says it is, and when a text looks like an HTML page
// whatever its type says: the tests the client, `api` and `docs` use to tell the API's JSON
// from a proxy's or a login wall's web page.

import { describe, expect, it } from 'vitest';
import { isHtmlType, isJsonType, looksLikeHtml, mediaType } from '../../src/http/media-type.js';

describe('mediaType', () => {
  it('is the type alone, lower-case, without its parameters or the spaces around it; no header is ""', () => {
    expect(mediaType(' Application/JSON ; charset=utf-8')).toBe('application/json');
    expect(mediaType('text/HTML')).toBe('text/html');
    expect(mediaType(undefined)).toBe('');
    expect(mediaType('')).toBe('');
  });
});

describe('isJsonType and isHtmlType', () => {
  it('JSON is application/json, text/json and any +json type, with or without parameters', () => {
    for (const t of ['application/json', 'text/json', 'application/problem+json', 'application/ld+json; profile="x"', 'application/json ; charset=utf-8']) {
      expect(isJsonType(t), t).toBe(true);
    }
    for (const t of ['text/plain', 'text/html', 'application/jsonx', undefined]) expect(isJsonType(t), String(t)).toBe(false);
  });

  it('a web page is text/html or application/xhtml+xml', () => {
    for (const t of ['text/html', 'text/html; charset=utf-8', 'application/xhtml+xml']) expect(isHtmlType(t), t).toBe(true);
    for (const t of ['text/plain', 'application/xml', 'application/json', undefined]) expect(isHtmlType(t), String(t)).toBe(false);
  });
});

describe('looksLikeHtml', () => {
  it('a text that begins, after any blank space, with a doctype or an html, head or body tag, in any case', () => {
    for (const text of ['<!DOCTYPE html><p>x</p>', '\n  <html>', '\t<HEAD>', ' <body class="x">']) expect(looksLikeHtml(text), text).toBe(true);
  });

  it('not a text with such a tag further on, nor one that begins with something else', () => {
    for (const text of ['{"detail":"<html> is not allowed here"}', 'x<html>', 'error: <body>', '<p>x</p>', '']) expect(looksLikeHtml(text), text).toBe(false);
  });
});
