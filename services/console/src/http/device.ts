import { clientAddress } from '@voice/kit';
import type { FastifyRequest } from 'fastify';
import type { Device } from '../domain/sessions.js';

/** The device a request comes from: its client address (behind the trusted proxies) and its User-Agent. */
export function deviceOf(request: FastifyRequest): Device {
  return { clientAddress: clientAddress(request.ip, undefined), userAgent: request.headers['user-agent'] };
}
