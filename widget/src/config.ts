/** What the CMS side hands the bundle: `window.ServiceWidgetConfig` (CMS-B) or `drupalSettings.serviceWidget` (CMS-A). */
export interface WidgetConfig {
  serviceUrl: string;
  apiKey: string;
  instanceId: string;
  agentSlug: string;
  itemId: string;
  /** The item's publication status when the page was rendered (CMS-B: `publish` asks before the first edit). */
  itemStatus?: string;
}

declare global {
  interface Window {
    ServiceWidgetConfig?: Partial<WidgetConfig>;
    drupalSettings?: { serviceWidget?: Partial<WidgetConfig> };
  }
}

export function readConfig(): WidgetConfig | null {
  const raw = window.ServiceWidgetConfig ?? window.drupalSettings?.serviceWidget;
  if (!raw?.serviceUrl || !raw.apiKey || !raw.instanceId || !raw.agentSlug || !raw.itemId) return null;
  return {
    serviceUrl: raw.serviceUrl.replace(/\/+$/, ''),
    apiKey: raw.apiKey,
    instanceId: raw.instanceId,
    agentSlug: raw.agentSlug,
    itemId: String(raw.itemId),
    ...(typeof raw.itemStatus === 'string' ? { itemStatus: raw.itemStatus } : {}),
  };
}
