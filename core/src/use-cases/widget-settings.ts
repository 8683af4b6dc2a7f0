import { isAdmin, type Actor } from '../auth/index.ts';
import type { ConnectorInstances, ConnectorInstanceView } from '../connectors/index.ts';
import { DomainError } from '../errors/index.ts';
import type { WidgetKeys, WidgetSettings } from '../widget/index.ts';

/** The Assistants page: each instance of a connector with its widget settings (the key only as "set" and its prefix). Admins only. */
export function createListWidgetSettings(deps: { instances: Pick<ConnectorInstances, 'list'>; widgetKeys: Pick<WidgetKeys, 'settings'> }) {
  return async function listWidgetSettings(actor: Actor, connector: string): Promise<{ instance: ConnectorInstanceView; widget: WidgetSettings }[]> {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Widget settings are for admins only');
    const instances = await deps.instances.list(connector);
    const rows = await Promise.all(
      instances.map(async (instance) => {
        const widget = await deps.widgetKeys.settings(connector, instance.id);
        // Listed a moment ago: gone only if removed in between, and then not listed.
        return widget ? { instance, widget } : null;
      }),
    );
    return rows.filter((row) => row !== null);
  };
}
