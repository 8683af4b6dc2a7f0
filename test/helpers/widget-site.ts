import { randomBytes } from 'node:crypto';
import type { Services } from '@service/core';
import type { Database } from '@service/core/db';
import { testServices } from '@service/core/testing';
import { startCmsADouble, type CmsADouble } from './cms-a-double.ts';

export const WIDGET_TEST_ADMIN = { type: 'ui', id: 'admin', email: 'a@acme.test', role: 'admin' } as const;

/** A CMS-A site (the contract double) configured as instance `drupal`, with a widget key issued for it. */
export async function startWidgetSite(db: Database): Promise<{ site: CmsADouble; services: Services; key: string }> {
  const site = await startCmsADouble(`mcpkey_${randomBytes(8).toString('hex')}`);
  const services = testServices(db);
  await services.connectorInstances.put(WIDGET_TEST_ADMIN, { connector: 'cms_a', id: 'drupal', name: 'Drupal', siteUrl: site.siteUrl, credential: site.key });
  const { key } = await services.widgetKeys.rotate(WIDGET_TEST_ADMIN, 'cms_a', 'drupal');
  return { site, services, key };
}
