import http from 'node:http';
import https from 'node:https';
import { guardedLookup, literalAddressProblem } from '@voice/kit';

export interface PostOptions {
  timeoutMs: number;
  allowPrivateAddresses: boolean;
  /** How much of the response body to keep for the delivery log. */
  excerptChars: number;
}

/** What one attempt came to: a status and the start of the body, or an error name when none came back. */
export type PostResult =
  | { kind: 'response'; status: number; excerpt: string }
  | { kind: 'error'; error: 'timeout' | 'address_not_allowed' | 'dns_failed' | 'connection_failed' | 'tls_failed' | 'request_failed' };

// Keep-alive pools per protocol: receivers get many deliveries, and a TLS handshake per POST is waste.
const agents = {
  'http:': new http.Agent({ keepAlive: true, maxSockets: 64 }),
  'https:': new https.Agent({ keepAlive: true, maxSockets: 64 }),
};

function classify(error: NodeJS.ErrnoException): Extract<PostResult, { kind: 'error' }>['error'] {
  if (error.name === 'ForbiddenAddressError') return 'address_not_allowed';
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return 'dns_failed';
  if (error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET' || error.code === 'EHOSTUNREACH' || error.code === 'ENETUNREACH') {
    return 'connection_failed';
  }
  if (error.code?.startsWith('ERR_TLS') || error.code?.includes('CERT') || error.code === 'EPROTO') return 'tls_failed';
  return 'request_failed';
}

/**
 * POSTs a body and reads what comes back, within `timeoutMs` for the whole exchange. Redirects are not
 * followed (a 3xx is a failed attempt, as Stripe and Svix treat it), and every address the name resolves
 * to is checked before the socket connects.
 */
export function postJson(url: string, body: string, headers: Record<string, string>, options: PostOptions): Promise<PostResult> {
  const target = new URL(url);
  if (literalAddressProblem(target, options.allowPrivateAddresses) !== null) {
    return Promise.resolve({ kind: 'error', error: 'address_not_allowed' });
  }
  const transport = target.protocol === 'https:' ? https : http;
  const agent = target.protocol === 'https:' ? agents['https:'] : agents['http:'];
  return new Promise((resolve) => {
    let settled = false;
    const finish = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const request = transport.request(
      target,
      {
        method: 'POST',
        agent,
        lookup: guardedLookup(options.allowPrivateAddresses),
        headers: {
          ...headers,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'voice-webhooks/1.0',
        },
      },
      (response) => {
        let excerpt = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => {
          if (excerpt.length < options.excerptChars) excerpt += chunk.slice(0, options.excerptChars - excerpt.length);
        });
        response.on('end', () => finish({ kind: 'response', status: response.statusCode ?? 0, excerpt }));
        response.on('error', () => finish({ kind: 'response', status: response.statusCode ?? 0, excerpt }));
      },
    );
    const timer = setTimeout(() => {
      finish({ kind: 'error', error: 'timeout' });
      request.destroy();
    }, options.timeoutMs);
    request.on('error', (error: NodeJS.ErrnoException) => finish({ kind: 'error', error: classify(error) }));
    request.end(body);
  });
}
