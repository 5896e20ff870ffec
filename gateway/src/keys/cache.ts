import { liveOrgOf } from '@voice/proto';
import type { KeyGrant } from './store.js';

/** What a broadcast drops: entries by hash, every entry of a key or grant (its access tokens), or of an organization. */
export interface KeyChange {
  hashes?: string[];
  keyIds?: string[];
  orgId?: string;
}

interface Entry {
  grant: KeyGrant | null;
  expiresAtMs: number;
}

/**
 * Key lookups by hash, kept in memory briefly so the hot path does not query Postgres. Revocation,
 * rotation and plan changes are broadcast over NATS and drop entries on every replica at once; a key's
 * end is also checked by the quota call, and the TTL bounds staleness if both are ever missed.
 */
export class KeyCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<KeyGrant | null>>();
  /** Bumped by every invalidation, so a lookup that started before one does not store a stale answer. */
  private generation = 0;

  constructor(
    private readonly load: (hash: string) => Promise<KeyGrant | null>,
    private readonly options: { ttlMs: number; unknownTtlMs: number; maxEntries: number; nowMs?: () => number },
  ) {}

  private now(): number {
    return this.options.nowMs?.() ?? Date.now();
  }

  /** The grant if it is cached and fresh, without waiting: the hot path's hit costs no promise. */
  cached(hash: string): KeyGrant | undefined {
    const entry = this.entries.get(hash);
    return entry?.grant && entry.expiresAtMs > this.now() ? entry.grant : undefined;
  }

  async get(hash: string): Promise<KeyGrant | null> {
    const entry = this.entries.get(hash);
    if (entry && entry.expiresAtMs > this.now()) return entry.grant;
    // Concurrent requests with the same key share one lookup.
    let pending = this.loading.get(hash);
    if (pending) return pending;
    const generation = this.generation;
    pending = this.load(hash).finally(() => this.loading.delete(hash));
    this.loading.set(hash, pending);
    const grant = await pending;
    if (generation === this.generation) {
      if (this.entries.size >= this.options.maxEntries) this.entries.clear();
      this.entries.set(hash, { grant, expiresAtMs: this.now() + (grant ? this.options.ttlMs : this.options.unknownTtlMs) });
    }
    return grant;
  }

  /** Drops the given hashes, every entry of the given keys or grants, or every entry of an organization (a plan change). */
  invalidate(change: KeyChange): void {
    this.generation++;
    this.loading.clear();
    for (const hash of change.hashes ?? []) this.entries.delete(hash);
    const keyIds = new Set(change.keyIds ?? []);
    if (change.orgId || keyIds.size > 0) {
      for (const [hash, entry] of this.entries) {
        // A change to an organization (its plan) is one to its test twin too.
        const ofOrg = change.orgId !== undefined && entry.grant && liveOrgOf(entry.grant.orgId) === liveOrgOf(change.orgId);
        if (entry.grant && (ofOrg || keyIds.has(entry.grant.id))) this.entries.delete(hash);
      }
    }
  }
}

/** The NATS subject every gateway replica listens on for key changes. */
export const keyChangesSubject = 'gateway.keys.changed';
