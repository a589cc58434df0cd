// Small pieces of plumbing shared by the API and the admin endpoints.

import type { IncomingMessage, ServerResponse } from 'node:http';
import { isIPv4 } from 'node:net';
import { createHash } from 'node:crypto';

export const MAX_BODY = 1024 * 1024;

export interface Reply {
  status: number;
  body: string;
  contentType?: string;
  headers?: Record<string, string | number>;
}

export function send(res: ServerResponse, reply: Reply): void {
  // Says that this is a sandbox, so that a client can give the sandbox's advice (how to
  // get its token) rather than a dashboard's.
  const headers: Record<string, string | number> = { ...reply.headers, 'X-Hostctl-Sandbox': '1' };
  const bodiless = reply.status === 204 || reply.status === 304;
  if (!bodiless) {
    headers['Content-Type'] = reply.contentType ?? 'application/json; charset=utf-8';
    headers['Content-Length'] = Buffer.byteLength(reply.body);
  }
  res.writeHead(reply.status, headers);
  res.end(bodiless ? undefined : reply.body);
}

/**
 * A successful read gets an ETag (a digest of its body and type), and a request whose
 * If-None-Match names it gets 304 without the body, so that clients' revalidation is
 * exercised. The platform document promises no validators; clients must not rely on them.
 */
export function withEtag(req: IncomingMessage, reply: Reply): Reply {
  if ((req.method !== 'GET' && req.method !== 'HEAD') || reply.status !== 200) return reply;
  const etag = `"${createHash('sha256').update(reply.contentType ?? '').update('\n').update(reply.body).digest('base64url').slice(0, 22)}"`;
  const headers = { ...reply.headers, ETag: etag };
  const asked = req.headers['if-none-match'];
  if (asked !== undefined && asked.split(',').some((t) => t.trim().replace(/^W\//, '') === etag)) return { status: 304, body: '', headers };
  return { ...reply, headers };
}

/** The client's address, with IPv4-mapped IPv6 (::ffff:127.0.0.1) written as IPv4. */
export function clientIp(req: IncomingMessage): string {
  const raw = req.socket.remoteAddress ?? 'unknown';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(raw);
  return mapped?.[1] ?? raw;
}

export function isLoopback(ip: string): boolean {
  if (ip === '::1') return true;
  return isIPv4(ip) && ip.startsWith('127.');
}

/** The request body, or undefined when it is larger than `limit` bytes. */
export function readBody(req: IncomingMessage, limit = MAX_BODY): Promise<Buffer | undefined> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) tooLarge = true;
      else chunks.push(chunk);
    });
    req.on('end', () => resolve(tooLarge ? undefined : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export function splitTarget(target: string): { path: string; query: string } {
  const i = target.indexOf('?');
  return i === -1 ? { path: target, query: '' } : { path: target.slice(0, i), query: target.slice(i + 1) };
}

/** A JSON body is either unlabelled or labelled application/json or …+json. */
export function isJsonContentType(header: string | undefined): boolean {
  if (!header) return true;
  const type = header.split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}
