import { ApiError, type UrlPolicy, urlProblem } from '@voice/kit';

/**
 * Why an endpoint URL is refused, as the API says it, or null when it may be used. Outside production, a URL
 * refused only for its private, loopback or local address (a receiver on the developer's own machine) names
 * the setting that allows it; in production the answer says nothing about how the service is configured.
 */
export function endpointUrlRefusal(url: string, policy: UrlPolicy, production: boolean): ApiError | null {
  const problem = urlProblem(url, policy);
  if (problem === null) return null;
  const allowedLocally =
    !production && !policy.allowPrivateAddresses && urlProblem(url, { ...policy, allowPrivateAddresses: true }) === null;
  const hint = allowedLocally
    ? ' For a receiver on this machine in development, start the webhooks service with WEBHOOKS_ALLOW_PRIVATE_ADDRESSES=true.'
    : '';
  return new ApiError('invalid_request', `url ${problem}.${hint}`, { param: 'url' });
}
