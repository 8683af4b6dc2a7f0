/** What the CMS side hands the bundle: `window.ServiceWidgetConfig` (CMS-B) or `drupalSettings.serviceWidget` (CMS-A). */
export interface WidgetConfig {
  serviceUrl: string;
  apiKey: string;
  instanceId: string;
  agentSlug: string;
  /** The item open on the page; null on a CMS-A page that shows none (the front page): a site-level chat that cannot edit. */
  itemId: string | null;
  /** The item's publication status when the page was rendered (CMS-B: `publish` asks before the first edit). */
  itemStatus?: string;
}

declare global {
  interface Window {
    ServiceWidgetConfig?: Partial<Omit<WidgetConfig, 'itemId'>> & { itemId?: string | number };
    drupalSettings?: { serviceWidget?: Partial<Omit<WidgetConfig, 'itemId'>> & { itemId?: string | number } };
  }
}

/**
 * The settings, or null when the widget should not mount. CMS-A attaches the widget to node pages
 * and the front page; where no node is open it names no item and gets the site-level chat. CMS-B
 * loads the bundle on every admin page but mounts it only in a post's editor (an item named).
 */
export function readConfig(): WidgetConfig | null {
  const fromCmsA = !window.ServiceWidgetConfig && !!window.drupalSettings?.serviceWidget;
  const raw = window.ServiceWidgetConfig ?? window.drupalSettings?.serviceWidget;
  if (!raw?.serviceUrl || !raw.apiKey || !raw.instanceId || !raw.agentSlug) return null;
  const itemId = raw.itemId === undefined || raw.itemId === null || raw.itemId === '' ? null : String(raw.itemId);
  if (itemId === null && !fromCmsA) return null;
  return {
    serviceUrl: raw.serviceUrl.replace(/\/+$/, ''),
    apiKey: raw.apiKey,
    instanceId: raw.instanceId,
    agentSlug: raw.agentSlug,
    itemId,
    ...(typeof raw.itemStatus === 'string' ? { itemStatus: raw.itemStatus } : {}),
  };
}
