/** The path of a request URL, without its query string. */
export function urlPath(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The path of the first string (value or object key) holding a NUL character, or undefined. Postgres
 * cannot store U+0000 in text or jsonb, so such input is refused at the door with a 400 naming the field,
 * rather than failing deep in a query as a 500.
 */
export function findNulCharacter(value: unknown, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || '(value)' : undefined;
  if (Array.isArray(value)) {
    for (let index = 0; index < value.length; index++) {
      const found = findNulCharacter(value[index], path ? `${path}.${index}` : String(index));
      if (found !== undefined) return found;
    }
    return undefined;
  }
  // Parsed input is walked; a stream (a body the gateway proxies untouched) or a buffer is left alone.
  const opaque = Buffer.isBuffer(value) || typeof (value as { pipe?: unknown } | null)?.pipe === 'function';
  if (value !== null && typeof value === 'object' && !opaque) {
    for (const [key, inner] of Object.entries(value)) {
      const keyPath = path ? `${path}.${key}` : key;
      if (key.includes('\u0000')) return keyPath;
      const found = findNulCharacter(inner, keyPath);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}
