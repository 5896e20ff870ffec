import { isTestOrg } from '@voice/proto';
import type { CarrierAdapter } from './carrier.js';
import type { SandboxCarrier } from './sandbox.js';

/** The carrier of one organization's calls and messages. */
export type CarrierFor = (orgId: string) => CarrierAdapter;

/**
 * The one place that decides which carrier serves an organization (README, "Test mode"): a test twin's calls
 * and messages always go to the sandbox simulator, whatever this deployment's carrier, so nothing a test key
 * does ever reaches a telephone network; a live organization's go to the configured carrier
 * (`TELEPHONY_CARRIER`). Everything that talks to a carrier (dialing, canceling, sending, accepting a
 * carrier's callback) asks this with the record's organization, so no path can pick the other one.
 */
export function carrierChoice(configured: CarrierAdapter, sandbox: SandboxCarrier): CarrierFor {
  return (orgId) => (isTestOrg(orgId) ? sandbox : configured);
}
