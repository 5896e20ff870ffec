// Fetching a page someone else named, without letting them point us at our own network (SSRF): only
// http(s), only public addresses (checked on the address actually connected to, so DNS rebinding cannot
// slip past), every redirect checked the same way, bounded in time and size.
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress } from '@voice/kit';

export { isPublicAddress };

export type PageFetchFailure = 'invalid_url' | 'blocked_address' | 'timeout' | 'too_many_redirects' | 'network' | 'http_status';

export class PageFetchError extends Error {
  override readonly name = 'PageFetchError';
  readonly reason: PageFetchFailure;

  constructor(reason: PageFetchFailure, message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.reason = reason;
  }
}

export interface PageFetchOptions {
  timeoutMs: number;
  maxBytes: number;
  maxRedirects?: number;
  /** Which addresses may be connected to; public unicast only unless a caller narrows or widens it. */
  isAllowedAddress?: (address: string) => boolean;
  /** Name resolution; the system resolver by default. */
  lookup?: typeof dnsLookup;
  userAgent?: string;
}

export interface FetchedPage {
  url: string;
  finalUrl: string;
  status: number;
  contentType: string | null;
  body: string;
  /** The body was longer than `maxBytes` and was cut there. */
  truncated: boolean;
  elapsedMs: number;
}

function hostOf(url: URL): string {
  return url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
}

/** Parses and checks a URL before any connection: http(s), no credentials, an allowed literal address. */
export function checkTarget(raw: string, isAllowed: (address: string) => boolean = isPublicAddress): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new PageFetchError('invalid_url', 'not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new PageFetchError('invalid_url', `${url.protocol} URLs are not fetched`);
  if (url.username || url.password) throw new PageFetchError('invalid_url', 'URLs with credentials are not fetched');
  const host = hostOf(url);
  if (isIP(host) && !isAllowed(host)) throw new PageFetchError('blocked_address', `${host} is a private or reserved address`);
  if (host === 'localhost' || host.endsWith('.localhost')) throw new PageFetchError('blocked_address', `${host} is a local name`);
  return url;
}

/** A `lookup` for node's http client that resolves, then refuses unless every address is allowed. */
function guardedLookup(resolve: typeof dnsLookup, isAllowed: (address: string) => boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0);
      const list = Array.isArray(addresses) ? addresses : [];
      const refused = list.find((entry) => !isAllowed(entry.address));
      if (refused || list.length === 0) {
        const reason = refused ? `${hostname} resolves to ${refused.address}, a private or reserved address` : `${hostname} has no address`;
        return callback(new PageFetchError('blocked_address', reason) as NodeJS.ErrnoException, '', 0);
      }
      if (options.all) return (callback as unknown as (error: null, addresses: LookupAddress[]) => void)(null, list);
      const first = list[0] as LookupAddress;
      return callback(null, first.address, first.family);
    });
  };
}

interface Hop {
  status: number;
  location: string | undefined;
  contentType: string | null;
  body: Buffer;
  truncated: boolean;
}

function requestOnce(url: URL, options: Required<Omit<PageFetchOptions, 'maxRedirects'>>, signal: AbortSignal): Promise<Hop> {
  return new Promise((resolve, reject) => {
    const client = url.protocol === 'https:' ? https : http;
    const request = client.request(
      url,
      {
        method: 'GET',
        headers: { 'user-agent': options.userAgent, accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5' },
        lookup: guardedLookup(options.lookup, options.isAllowedAddress),
        signal,
        // A fresh connection per hop, so every hop's address goes through the guarded lookup.
        agent: false,
      },
      (response) => {
        const status = response.statusCode ?? 0;
        const location = typeof response.headers.location === 'string' ? response.headers.location : undefined;
        const contentType = response.headers['content-type'] ?? null;
        if (status >= 300 && status < 400 && location !== undefined) {
          response.resume();
          resolve({ status, location, contentType, body: Buffer.alloc(0), truncated: false });
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        let truncated = false;
        response.on('data', (chunk: Buffer) => {
          if (truncated) return;
          const room = options.maxBytes - size;
          if (chunk.length >= room) {
            chunks.push(chunk.subarray(0, room));
            size += room;
            truncated = true;
            resolve({ status, location, contentType, body: Buffer.concat(chunks), truncated });
            response.destroy();
            return;
          }
          chunks.push(chunk);
          size += chunk.length;
        });
        response.on('end', () => resolve({ status, location, contentType, body: Buffer.concat(chunks), truncated }));
        response.on('error', (error) => {
          if (!truncated) reject(error);
        });
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Fetches a page, following at most `maxRedirects` redirects, each checked like the first URL. */
export async function fetchPage(rawUrl: string, options: PageFetchOptions): Promise<FetchedPage> {
  const settings = {
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    isAllowedAddress: options.isAllowedAddress ?? isPublicAddress,
    lookup: options.lookup ?? dnsLookup,
    userAgent: options.userAgent ?? 'VoiceRecallBot/1.0 (+marketing audit)',
  };
  const maxRedirects = options.maxRedirects ?? 5;
  const started = performance.now();
  const signal = AbortSignal.timeout(settings.timeoutMs);
  let url = checkTarget(rawUrl, settings.isAllowedAddress);
  for (let redirects = 0; ; redirects++) {
    let hop: Hop;
    try {
      hop = await requestOnce(url, settings, signal);
    } catch (error) {
      const cause = error instanceof PageFetchError ? error : (error as { cause?: unknown }).cause;
      if (cause instanceof PageFetchError) throw cause;
      if (signal.aborted) throw new PageFetchError('timeout', `no complete answer within ${settings.timeoutMs} ms`, { cause: error });
      const code = (error as { code?: string }).code;
      throw new PageFetchError('network', `could not load the page (${code ?? (error as Error).message})`, { cause: error });
    }
    if (hop.location !== undefined) {
      if (redirects >= maxRedirects) throw new PageFetchError('too_many_redirects', `more than ${maxRedirects} redirects`);
      let next: string;
      try {
        next = new URL(hop.location, url).toString();
      } catch {
        throw new PageFetchError('invalid_url', 'redirect to an invalid URL');
      }
      url = checkTarget(next, settings.isAllowedAddress);
      continue;
    }
    return {
      url: rawUrl,
      finalUrl: url.toString(),
      status: hop.status,
      contentType: hop.contentType,
      body: hop.body.toString('utf8'),
      truncated: hop.truncated,
      elapsedMs: Math.round(performance.now() - started),
    };
  }
}
