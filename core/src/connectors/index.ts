export { definePrimitive, type Primitive, type PrimitiveAnnotations, type PrimitiveContext } from './primitive.ts';
export { createPrimitiveRegistry, mayCallPrimitive, PRIMITIVE_ACCESS_DENIED, type PrimitiveRegistry } from './registry.ts';
export { extensionsSearchPrimitive } from './service/extensions-search.ts';
export { createConnectorInstances, type ConnectorInstances, type ConnectorInstanceView } from './instances.ts';
export { cmsBConnector } from './cms-b/index.ts';
export { cmsAConnector } from './cms-a/index.ts';
export { diffFields, type FieldChange, type ContentEditorResult, type ItemState, type RecordedChange, type WidgetEditResult } from './content-edit.ts';
export { createStreamRegistry, widgetChatTool, type ConnectorUnit, type StreamRegistry } from './connector-unit.ts';
