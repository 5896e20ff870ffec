import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { rootCertificates } from 'node:tls';
import { guardedLookup, literalAddressProblem } from '@voice/kit';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import type { ConsoleContext } from './context.js';
import { OAuthError } from './oauth-errors.js';
import { redirectUrisSchema } from './oauth-redirect-uris.js';

/** What fetching a client's metadata document needs besides the console's context: Redis, for the cache. */
export interface ClientMetadataFetch {
  redis: Redis;
}

/** A metadata document is a few hundred bytes; anything past this is refused, not read. */
export const clientMetadataMaxBytes = 5 * 1024;
const fetchTimeoutMs = 5_000;
/** Documents change rarely; ten minutes keeps a burst of sign-ins to one fetch and a fix visible soon. */
const cacheSeconds = 600;

const documentSchema = z.object({
  client_id: z.string(),
  client_name: z.string().trim().min(1).max(200).optional(),
  redirect_uris: redirectUrisSchema,
  token_endpoint_auth_method: z.literal('none', 'only public clients (token_endpoint_auth_method "none") are accepted').optional(),
});
export type ClientMetadataDocument = z.infer<typeof documentSchema>;

const refused = (why: string) => new OAuthError('invalid_client', `The client's metadata document cannot be used: ${why}.`, 401);

let extraCa: { file: string; ca: string[] } | undefined;
/** Node's own authorities plus the configured one (a test CA), read once. */
function caOf(file: string | undefined): string[] | undefined {
  if (!file) return undefined;
  if (extraCa?.file !== file) extraCa = { file, ca: [...rootCertificates, readFileSync(file, 'utf8')] };
  return extraCa.ca;
}

/**
 * The Client ID Metadata Document at `url` (the client_id itself), validated: fetched over https with the
 * SSRF guard the webhooks use (every resolved address checked, the socket connects to what was checked),
 * no redirects, at most 5 KB within 5 seconds; its `client_id` must be its own URL. Cached in Redis.
 */
export async function fetchClientMetadata(ctx: ConsoleContext & ClientMetadataFetch, url: string): Promise<ClientMetadataDocument> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw refused('the client_id is not a URL');
  }
  if (target.protocol !== 'https:' || target.pathname === '/' || target.hash || target.username || target.password) {
    throw refused('a client_id URL must be https, with a path, without a fragment or credentials');
  }
  const cacheKey = `${ctx.env.REDIS_PREFIX}oauth-client-metadata:${createHash('sha256').update(url).digest('hex')}`;
  const cached = await ctx.redis.get(cacheKey);
  if (cached) return JSON.parse(cached) as ClientMetadataDocument;
  const allowPrivate = ctx.env.OAUTH_CLIENT_METADATA_ALLOW_PRIVATE_ADDRESSES;
  if (literalAddressProblem(target, allowPrivate) !== null) throw refused('it is on a private, loopback or link-local address');
  const body = await download(target, allowPrivate, caOf(ctx.env.OAUTH_CLIENT_METADATA_CA_FILE));
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    throw refused('it is not JSON');
  }
  const result = documentSchema.safeParse(parsed);
  if (!result.success) throw refused(result.error.issues[0]?.message ?? 'it is not a client metadata document');
  if (result.data.client_id !== url) throw refused('its client_id is not the URL it was fetched from');
  await ctx.redis.set(cacheKey, JSON.stringify(result.data), 'EX', cacheSeconds);
  return result.data;
}

function download(target: URL, allowPrivate: boolean, ca: string[] | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const request = https.get(
      target,
      {
        lookup: guardedLookup(allowPrivate),
        headers: { accept: 'application/json' },
        timeout: fetchTimeoutMs,
        ...(ca ? { ca } : {}),
      },
      (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(refused(`fetching it answered ${response.statusCode} (redirects are not followed)`));
          return;
        }
        const declared = Number(response.headers['content-length'] ?? 0);
        if (declared > clientMetadataMaxBytes) {
          request.destroy();
          reject(refused(`it is larger than ${clientMetadataMaxBytes} bytes`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > clientMetadataMaxBytes) {
            request.destroy();
            reject(refused(`it is larger than ${clientMetadataMaxBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        response.on('error', (error) => reject(refused(`reading it failed (${error.message})`)));
      },
    );
    // The whole exchange, not only an idle socket, is bounded.
    const timer = setTimeout(() => request.destroy(new Error('timed out')), fetchTimeoutMs);
    request.on('close', () => clearTimeout(timer));
    request.on('timeout', () => request.destroy(new Error('timed out')));
    request.on('error', (error) => {
      if (error.name === 'ForbiddenAddressError') reject(refused('it is on a private, loopback or link-local address'));
      else reject(refused(`fetching it failed (${error.message})`));
    });
  });
}
