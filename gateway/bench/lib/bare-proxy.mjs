// Case (b) of the gateway bench: the least a metering proxy can do. A bare @fastify/http-proxy in front of
// the telephony service, counting every request with the gateway's own Lua quota script, nothing else.
// Plain JavaScript on the gateway's compiled quota module, so it runs like the compiled gateway it is
// compared with. Started by gateway.ts as its own process; configured by environment.
import proxy from '@fastify/http-proxy';
import Fastify from 'fastify';
import { Redis } from 'ioredis';
import { countRequest, defineQuotaCommand } from '../../dist/quota/quota.js';

const required = (name) => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

// BARE_AUTO_PIPELINING=1: ioredis sends the commands of one event-loop turn in one write (case (b+)).
const redis = new Redis(required('REDIS_URL'), { enableAutoPipelining: process.env.BARE_AUTO_PIPELINING === '1' });
defineQuotaCommand(redis);
const counted = { prefix: `${required('REDIS_PREFIX')}bare:`, orgId: required('BARE_ORG_ID'), keyId: 'bench', lineageId: 'bench' };
// No durable record here: the counters start from zero, once, as the gateway's would in a new month.
const nothingCountedYet = { ofLineage: async () => 0, ofOrganization: async () => 0 };
const app = Fastify({ logger: false });
app.addHook('onRequest', async () => {
  await countRequest(redis, { ...counted, monthlyQuota: 2_000_000_000, dailyLimit: null, now: new Date() }, nothingCountedYet);
});
app.get('/readyz', async () => ({ status: 'ready' }));
await app.register(proxy, { upstream: required('BARE_UPSTREAM'), prefix: '/api/v1/phone', rewritePrefix: '/api/v1/phone', http2: false });
await app.listen({ host: '127.0.0.1', port: Number(required('PORT')) });

process.once('SIGTERM', () => {
  void app.close().then(() => {
    redis.disconnect();
    process.exit(0);
  });
});
