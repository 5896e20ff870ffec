// Case (m) of the gateway bench: the floor of a Node proxy on this machine, for comparison only. node:http
// and an undici Pool (what @fastify/reply-from uses underneath), one Lua quota call per request as in (b),
// the response streamed back; no fastify, no @fastify/http-proxy. What (b) costs above this is the framework
// and the proxy plugin; what this costs above nginx is Node itself. Configured by environment like (b).
import { createServer } from 'node:http';
import { pipeline } from 'node:stream';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { countRequest, defineQuotaCommand } from '../../dist/quota/quota.js';

const required = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const redis = new Redis(required('REDIS_URL'));
defineQuotaCommand(redis);
const counted = { prefix: `${required('REDIS_PREFIX')}minimal:`, orgId: required('BARE_ORG_ID'), keyId: 'bench', lineageId: 'bench' };
const nothingCountedYet = { ofLineage: async () => 0, ofOrganization: async () => 0 };
const upstream = new Pool(required('BARE_UPSTREAM'), { connections: 128, pipelining: 1 });
const hopByHop = new Set(['connection', 'keep-alive', 'transfer-encoding', 'host']);

const server = createServer((request, response) => {
  if (request.url === '/readyz') {
    response.end('ready');
    return;
  }
  countRequest(redis, { ...counted, monthlyQuota: 2_000_000_000, dailyLimit: null, now: new Date() }, nothingCountedYet)
    .then(() => {
      const headers = {};
      for (const name in request.headers) if (!hopByHop.has(name)) headers[name] = request.headers[name];
      return upstream.request({ path: request.url, method: request.method, headers });
    })
    .then(({ statusCode, headers, body }) => {
      for (const name of hopByHop) delete headers[name];
      response.writeHead(statusCode, headers);
      pipeline(body, response, () => {});
    })
    .catch(() => {
      response.statusCode = 503;
      response.end();
    });
});
server.keepAliveTimeout = 72_000;
server.listen(Number(required('PORT')), '127.0.0.1');

process.once('SIGTERM', () => {
  server.close();
  server.closeAllConnections();
  void upstream.close().then(() => {
    redis.disconnect();
    process.exit(0);
  });
});
