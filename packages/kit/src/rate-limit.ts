import { isIP } from 'node:net';
import type { Redis } from 'ioredis';
import { ApiError } from './errors.js';
import { defineLuaCommand } from './redis.js';

type WindowReply = [allowed: number, count: number, resetInMs: number];
type RedisWithWindow = Redis & { fixedWindowLimit(key: string, limit: number, windowMs: number): Promise<WindowReply> };

export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  resetInSeconds: number;
}

/**
 * A fixed-window limiter per subject (a client address, an account), one Redis round trip per decision
 * (lua/fixed-window-1.lua). A refused attempt is not counted, so the window's end is a real end.
 */
export class FixedWindowLimiter {
  private readonly redis: RedisWithWindow;

  constructor(
    redis: Redis,
    private readonly options: { prefix: string; name: string; limit: number; windowSeconds: number },
  ) {
    // ../lua from src/ and dist/ alike; read when the first limiter is made, not when kit is imported, so
    // only the images of deployables that limit need kit's lua directory.
    defineLuaCommand(redis, 'fixedWindowLimit', new URL('../lua/fixed-window-1.lua', import.meta.url), 1);
    this.redis = redis as RedisWithWindow;
  }

  private key(subject: string, windowStart: number): string {
    // The hash tag keeps every key of one subject on one Redis Cluster slot.
    return `${this.options.prefix}ratelimit:${this.options.name}:{${subject}}:${windowStart}`;
  }

  private windowStart(): number {
    const windowMs = this.options.windowSeconds * 1000;
    return Math.floor(Date.now() / windowMs) * windowMs;
  }

  /** Forgets the subject's attempts in the current window (a correct password ends an account's count). */
  async reset(subject: string): Promise<void> {
    await this.redis.del(this.key(subject, this.windowStart()));
  }

  async take(subject: string): Promise<RateLimitDecision> {
    const windowMs = this.options.windowSeconds * 1000;
    const key = this.key(subject, this.windowStart());
    let reply: WindowReply;
    try {
      reply = await this.redis.fixedWindowLimit(key, this.options.limit, windowMs);
    } catch (error) {
      throw new ApiError('unavailable', 'Rate limiting is unavailable right now; retry shortly.', {
        cause: error,
        headers: { 'retry-after': '1' },
      });
    }
    const [allowed, count, resetInMs] = reply;
    return {
      allowed: allowed === 1,
      limit: this.options.limit,
      remaining: Math.max(0, this.options.limit - count),
      resetInSeconds: Math.max(1, Math.ceil(resetInMs / 1000)),
    };
  }
}

/**
 * The client address for rate limiting: the last X-Forwarded-For entry, which is the one the gateway
 * wrote (anything before it came from the client and is ignored), else the socket's peer. IPv6 clients
 * are limited per /64, the block one subscriber usually holds.
 */
export function clientAddress(forwardedFor: string | string[] | undefined, socketAddress: string | undefined): string {
  const header = Array.isArray(forwardedFor) ? forwardedFor.at(-1) : forwardedFor;
  const last = header?.split(',').at(-1)?.trim();
  const candidate = last && isIP(last) ? last : (socketAddress ?? 'unknown');
  return isIP(candidate) === 6 ? ipv6Prefix64(candidate) : candidate;
}

function ipv6Prefix64(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped?.[1]) return mapped[1];
  const [head = '', tail = ''] = address.toLowerCase().split('::');
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const groups = address.includes('::')
    ? [...headParts, ...Array<string>(8 - headParts.length - tailParts.length).fill('0'), ...tailParts]
    : headParts;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}
