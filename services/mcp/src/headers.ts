import type { IncomingHttpHeaders } from 'node:http';

/** A request header as one string: a repeated header's values joined as HTTP joins a list (RFC 9110, 5.3). */
export function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
}
