/**
 * Connection options for NATS_URL: one server, or several comma separated (the servers of a cluster, tried
 * in turn at the start and after losing one; the client also learns the others from whichever answers).
 * The client library ignores credentials in a URL, so they are taken out of it here:
 * `nats://user:password@host:4222` authenticates with user and password, `nats://token@host:4222` with a
 * token; with several servers the first credentials given are used for all. The server list keeps no
 * credentials (it shows in errors).
 */
export function natsServer(url: string): { servers: string | string[]; user?: string; pass?: string; token?: string } {
  const list = url
    .split(',')
    .map((one) => one.trim())
    .filter(Boolean);
  let credentials: { user?: string; pass?: string; token?: string } = {};
  const servers = list.map((one) => {
    let parsed: URL;
    try {
      parsed = new URL(one.includes('://') ? one : `nats://${one}`);
    } catch {
      return one;
    }
    if (!parsed.username) return one;
    const user = decodeURIComponent(parsed.username);
    const pass = decodeURIComponent(parsed.password);
    if (!credentials.user && !credentials.token) credentials = pass ? { user, pass } : { token: user };
    return `${parsed.protocol}//${parsed.host}`;
  });
  return { servers: servers.length === 1 ? (servers[0] as string) : servers, ...credentials };
}
