import { afterAll, describe, expect, it } from 'vitest';
import { createOutboundHttp } from '../../http/index.ts';
import { createCmsAClient } from './client.ts';

describe('the CMS-A client', () => {
  const http = createOutboundHttp({ allowPrivate: false });
  afterAll(() => http.close());

  it.each(['http://127.0.0.1:4', 'http://localhost:4'])('names the address policy when it refuses %s, not "unreachable"', async (siteUrl) => {
    const client = createCmsAClient({ siteUrl, mcpKey: 'key' }, http);
    await expect(client.siteInfo()).rejects.toMatchObject({ code: 'OUTBOUND_REFUSED', message: expect.stringContaining('SERVICE_OUTBOUND_ALLOW_PRIVATE') });
  });
});
