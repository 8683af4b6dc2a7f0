export { json, errorResponse } from './json.ts';
export { readBodyLimited, readBytesLimited } from './body.ts';
export { createRateLimiter, type RateLimiter } from './rate-limit.ts';
export { bearerToken } from './bearer.ts';
export { toWebRequest, sendWebResponse } from './node-adapter.ts';
export { createSeamRouter, type SeamHandler, type SeamRouter } from './seam-router.ts';
export { createOutboundHttp, OutboundRefusedError, OutboundUnreachableError, type OutboundHttp, type OutboundCall, type OutboundPolicy } from './outbound.ts';
export { isNonPublicAddress } from './address-policy.ts';
export { assertJsonDepth, MAX_JSON_DEPTH } from './json-depth.ts';
