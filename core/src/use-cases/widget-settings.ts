import { isAdmin, type Actor } from '../auth/index.ts';
import type { ConnectorInstances, ConnectorInstanceView } from '../connectors/index.ts';
import { DomainError } from '../errors/index.ts';
import type { WidgetKeys, WidgetSettings } from '../widget/index.ts';

/** The Assistants page: each instance of a connector with its widget settings (the key only as "set" and its prefix). Admins only. */
export function createListWidgetSettings(deps: { instances: Pick<ConnectorInstances, 'list'>; widgetKeys: Pick<WidgetKeys, 'settings'> }) {
  return async function listWidgetSettings(actor: Actor, connector: string): Promise<{ instance: ConnectorInstanceView; widget: WidgetSettings }[]> {
    if (!isAdmin(actor)) throw new DomainError('FORBIDDEN', 'Widget settings are for admins only');
    const instances = await deps.instances.list(connector);
    return Promise.all(
      instances.map(async (instance) => {
        const widget = await deps.widgetKeys.settings(connector, instance.id);
        // Listed a moment ago: gone only if deleted in between.
        if (!widget) throw new DomainError('NOT_FOUND', `No ${connector} instance "${instance.id}"`);
        return { instance, widget };
      }),
    );
  };
}
