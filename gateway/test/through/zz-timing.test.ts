import { test } from 'node:test';
import { client, startPlatform } from './services.js';

test('t', async () => {
  const p = await startPlatform();
  const o = await p.org();
  const api = client(p.url, o.key);
  await api.get('/api/v1/phone/calls');
  await api.get('/api/v1/usage'); const r = await api.post('/api/v1/phone/sms', { to: '+14155550000', body: 'x'.repeat(100_000) }); console.log('status', r.status, r.text);
  let t = Date.now();
  await p.gateway.app.close();
  console.log('app.close', Date.now() - t);
  t = Date.now();
  await p.gateway.deps.close();
  console.log('deps.close', Date.now() - t);
  t = Date.now();
  await p.close();
});
