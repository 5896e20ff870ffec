import { isPublicPath, requiredScope } from './scopes.js';

/** The part of an OpenAPI document the comparison reads. */
export interface DocumentPaths {
  paths?: Record<string, Record<string, Record<string, unknown>>>;
}

/** A route whose declared scope (its operation's) is not the one the gateway's method/path rule enforces. */
export interface ScopeDisagreement {
  service: string;
  method: string;
  path: string;
  declared: string;
  rule: string;
}

export function describeDisagreement(disagreement: ScopeDisagreement): string {
  const { service, method, path, declared, rule } = disagreement;
  return `${method.toUpperCase()} ${path}: ${service} declares scope ${declared}, the gateway's rule (requiredScope) enforces ${rule}`;
}

/** The operations of one service's OpenAPI document whose `x-scope` differs from the gateway's rule. */
export function scopeDisagreements(service: string, document: DocumentPaths): ScopeDisagreement[] {
  const found: ScopeDisagreement[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!path.startsWith('/api/') || isPublicPath(path)) continue;
    for (const [method, operation] of Object.entries(item)) {
      const declared = operation['x-scope'];
      if (typeof declared !== 'string') continue;
      const rule = requiredScope(method.toUpperCase(), path);
      if (declared !== rule) found.push({ service, method, path, declared, rule });
    }
  }
  return found;
}
