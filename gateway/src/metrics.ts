import type { HttpApp } from '@voice/kit';
import { Registry } from 'prom-client';

/**
 * The gateway's own Prometheus metrics (the audit buffer's), served on the same /metrics as the process
 * metrics: kit's health plugin owns that route and its registry, so this registry's text is appended to
 * its answer. Metric names are distinct, so the two texts concatenate into one valid exposition.
 */
export function gatewayMetrics(app: HttpApp): Registry {
  const registry = new Registry();
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (request.url !== '/metrics' || typeof payload !== 'string') return done(null, payload);
    registry.metrics().then(
      (text) => done(null, `${payload}${text}`),
      (error: Error) => done(error),
    );
  });
  return registry;
}
