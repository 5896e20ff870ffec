import { ApiError, type Bus } from '@voice/kit';
import { refreshTokenLifetimeSeconds } from '@voice/proto';
import type { ConsoleContext } from './context.js';
import { verifierMatches } from './oauth-authorization.js';
import { OAuthError } from './oauth-errors.js';
import { endGrant, grantorStanding, issueAccessToken } from './oauth-grants.js';
import { hashToken, newToken } from './tokens.js';

type TokenContext = ConsoleContext & { bus: Bus };
type Params = Record<string, string | undefined>;
interface GrantRef {
  grantId: string;
  orgId: string;
  userId: string;
  clientId: string;
  resource: string;
}

const invalidGrant = (description: string) => new OAuthError('invalid_grant', description);

/** Ends a grant on the platform's own account (audited with the reason); one already ended is the outcome wanted. */
async function end(ctx: TokenContext, grant: GrantRef, requestId: string, reason: Parameters<typeof endGrant>[3]): Promise<void> {
  try {
    await endGrant(ctx, grant, requestId, reason);
  } catch (error) {
    // Anything but "not there" must not hide the reason from the caller.
    if (!(error instanceof ApiError && error.code === 'not_found')) throw error;
  }
}

/**
 * A code or refresh token used a second time: someone else has a copy, so the whole grant ends (RFC 9700
 * section 4.14.2, and section 4.1.3 of RFC 6749 for codes) and the caller gets invalid_grant.
 */
async function reused(ctx: TokenContext, grant: GrantRef, requestId: string, what: 'authorization code' | 'refresh token'): Promise<never> {
  await end(ctx, grant, requestId, what === 'refresh token' ? 'refresh_token_reuse' : 'code_reuse');
  ctx.logger.warn({ grant_id: grant.grantId, client_id: grant.clientId }, `${what} reused; grant revoked`);
  throw invalidGrant(`This ${what} was already used; the grant is revoked. Authorize again.`);
}

/**
 * The access token from the gateway and a new refresh token (stored as its hash) for one grant. A grant
 * acts for the person who granted it: if they have left the organization it ends here (`member_removed`,
 * whether or not their removal reached the gateway), and the gateway ends one above what their role
 * allows now (`role_changed`).
 */
async function tokensFor(ctx: TokenContext, grant: GrantRef, requestId: string) {
  const grantorScope = await grantorStanding(ctx.prisma, grant);
  if (grantorScope === undefined) {
    await end(ctx, grant, requestId, 'member_removed');
    throw invalidGrant('The person who granted this app is no longer in the organization; the grant is revoked. Authorize again.');
  }
  let access: Awaited<ReturnType<typeof issueAccessToken>>;
  try {
    access = await issueAccessToken(ctx, grant, requestId, grantorScope);
  } catch (error) {
    if (
      error instanceof ApiError &&
      (error.code === 'revoked' || error.code === 'not_found' || error.code === 'unknown_key' || error.code === 'forbidden')
    ) {
      throw invalidGrant('The grant is revoked. Authorize again.');
    }
    if (error instanceof ApiError && error.code === 'invalid_request' && error.param === 'resource') {
      throw new OAuthError('invalid_target', error.message);
    }
    throw error;
  }
  const refreshToken = newToken();
  const now = ctx.now();
  await ctx.prisma.oAuthRefreshToken.create({
    data: {
      tokenHash: hashToken(refreshToken),
      grantId: grant.grantId,
      clientId: grant.clientId,
      orgId: grant.orgId,
      userId: grant.userId,
      resource: grant.resource,
      createdAt: now,
      expiresAt: new Date(now.getTime() + refreshTokenLifetimeSeconds * 1000),
    },
  });
  return { ...access, refresh_token: refreshToken };
}

function checkResource(params: Params, resource: string): void {
  if (params.resource !== undefined && params.resource !== resource) {
    throw new OAuthError('invalid_target', `resource must be ${resource}, the resource this grant is for.`);
  }
}

/** grant_type=authorization_code: one use, within its minute, by its client, with its redirect URI and PKCE verifier. */
export async function redeemCode(ctx: TokenContext, params: Params, requestId: string) {
  const { code, client_id: clientId, redirect_uri: redirectUri, code_verifier: verifier } = params;
  if (!code || !clientId || !redirectUri || !verifier) {
    throw new OAuthError('invalid_request', 'code, client_id, redirect_uri and code_verifier are required.');
  }
  const codeHash = hashToken(code);
  const stored = await ctx.prisma.oAuthCode.findUnique({ where: { codeHash } });
  if (!stored) throw invalidGrant('The code is unknown.');
  const now = ctx.now();
  if (stored.usedAt) await reused(ctx, stored, requestId, 'authorization code');
  if (stored.clientId !== clientId) throw invalidGrant('The code was issued to another client.');
  const claimed = await ctx.prisma.oAuthCode.updateMany({ where: { codeHash, usedAt: null }, data: { usedAt: now } });
  if (claimed.count === 0) await reused(ctx, stored, requestId, 'authorization code');
  if (stored.expiresAt <= now) throw invalidGrant('The code has expired. Authorize again.');
  if (stored.redirectUri !== redirectUri) throw invalidGrant('redirect_uri is not the one the code was issued for.');
  if (!verifierMatches(verifier, stored.codeChallenge)) throw invalidGrant('The code_verifier does not match the code_challenge.');
  checkResource(params, stored.resource);
  return releaseOnOutage(tokensFor(ctx, stored, requestId), () =>
    ctx.prisma.oAuthCode.updateMany({ where: { codeHash }, data: { usedAt: null } }),
  );
}

/**
 * When the gateway cannot answer (not a refusal), the code or refresh token is given back, so the client's
 * retry works rather than counting as a reuse that would revoke the grant.
 */
async function releaseOnOutage<T>(issuing: Promise<T>, release: () => Promise<unknown>): Promise<T> {
  try {
    return await issuing;
  } catch (error) {
    if (!(error instanceof OAuthError)) await release();
    throw error;
  }
}

/** grant_type=refresh_token with rotation: the token is spent and a new one comes with the access token. */
export async function redeemRefreshToken(ctx: TokenContext, params: Params, requestId: string) {
  const { refresh_token: refreshToken, client_id: clientId } = params;
  if (!refreshToken || !clientId) throw new OAuthError('invalid_request', 'refresh_token and client_id are required.');
  const tokenHash = hashToken(refreshToken);
  const stored = await ctx.prisma.oAuthRefreshToken.findUnique({ where: { tokenHash } });
  if (!stored || stored.clientId !== clientId) throw invalidGrant('The refresh token is unknown.');
  const now = ctx.now();
  if (stored.usedAt) await reused(ctx, stored, requestId, 'refresh token');
  if (stored.expiresAt <= now) throw invalidGrant('The refresh token has expired. Authorize again.');
  checkResource(params, stored.resource);
  const claimed = await ctx.prisma.oAuthRefreshToken.updateMany({ where: { tokenHash, usedAt: null }, data: { usedAt: now } });
  if (claimed.count === 0) await reused(ctx, stored, requestId, 'refresh token');
  return releaseOnOutage(tokensFor(ctx, stored, requestId), () =>
    ctx.prisma.oAuthRefreshToken.updateMany({ where: { tokenHash }, data: { usedAt: null } }),
  );
}

/**
 * RFC 7009: a refresh token ends its grant (and with it every access token). Anything else, access tokens
 * included (the gateway's; they live an hour at most), is answered like an unknown token: nothing to do.
 */
export async function revokeToken(ctx: TokenContext, params: Params, requestId: string): Promise<void> {
  if (!params.token) throw new OAuthError('invalid_request', 'token is required.');
  const stored = await ctx.prisma.oAuthRefreshToken.findUnique({ where: { tokenHash: hashToken(params.token) } });
  if (!stored || (params.client_id !== undefined && params.client_id !== stored.clientId)) return;
  await ctx.prisma.oAuthRefreshToken.updateMany({ where: { grantId: stored.grantId, usedAt: null }, data: { usedAt: ctx.now() } });
  await end(ctx, stored, requestId, 'client_revoked');
}
