// Its own module because both the dependency check and the Redis client name servers in messages,
// and the dependency check also creates Redis clients: kept in either, the two would import each other.

/** Host and port of a server URL (of each, for a comma-separated list), for messages: never its credentials. */
export function serverAddress(url: string): string {
  return url
    .split(',')
    .map((one) => {
      try {
        const parsed = new URL(one.trim());
        return `${parsed.hostname}:${parsed.port}`;
      } catch {
        return one;
      }
    })
    .join(',');
}
