/** The path of a request URL, without its query string. */
export function urlPath(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * The deepest nesting of objects and arrays accepted in input. Real payloads stay within a dozen levels;
 * a body nested thousands deep exists only to exhaust a recursive walk somewhere behind the door.
 */
export const maxInputDepth = 64;

/** Input nested deeper than `maxInputDepth`: a client error (400), never a stack overflow. */
export class InputTooDeepError extends Error {
  override readonly name = 'InputTooDeepError';
  /** The top-level field holding the deep value (the full path would be as long as the nesting). */
  readonly field: string;

  constructor(field: string) {
    super(`${field} is nested deeper than ${maxInputDepth} levels.`);
    this.field = field;
  }
}

/**
 * The path of the first string (value or object key) holding a NUL character, or undefined. Postgres
 * cannot store U+0000 in text or jsonb, so such input is refused at the door with a 400 naming the field,
 * rather than failing deep in a query as a 500. The walk keeps its own stack, so no nesting can overflow
 * the call stack; input deeper than `maxInputDepth` throws InputTooDeepError.
 */
export function findNulCharacter(value: unknown): string | undefined {
  const pending: Array<{ value: unknown; path: string; depth: number }> = [{ value, path: '', depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, path, depth } = next;
    if (typeof current === 'string') {
      if (current.includes('\u0000')) return path || '(value)';
      continue;
    }
    // Parsed input is walked; a stream (a body the gateway proxies untouched) or a buffer is left alone.
    if (
      current === null ||
      typeof current !== 'object' ||
      Buffer.isBuffer(current) ||
      typeof (current as { pipe?: unknown }).pipe === 'function'
    )
      continue;
    if (depth >= maxInputDepth) throw new InputTooDeepError(path.split('.')[0] || '(value)');
    // Children are pushed last first, so they are examined in order and the first NUL found is the first in the input.
    const entries = Array.isArray(current) ? current.map((inner, index) => [String(index), inner] as const) : Object.entries(current);
    for (let index = entries.length - 1; index >= 0; index--) {
      const [key, inner] = entries[index] as readonly [string, unknown];
      const keyPath = path ? `${path}.${key}` : key;
      pending.push({ value: inner, path: keyPath, depth: depth + 1 });
      // A key holding a NUL is examined as a string just before its value.
      if (key.includes('\u0000')) pending.push({ value: key, path: keyPath, depth: depth + 1 });
    }
  }
  return undefined;
}
