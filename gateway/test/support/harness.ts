// The gateway's test support, and what other workspaces' tests import as `@voice/gateway/testing`: a gateway
// on a test context, the whole platform behind it, an HTTP client for it and the assertions its tests share.
export * from './api.js';
export * from './gateway.js';
export * from './platform.js';
