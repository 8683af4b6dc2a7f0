export { widgetEventSchemas, encodeWidgetEvent, type WidgetEvent, type WidgetEventName } from './events.ts';
export { createWidgetKeys, DEFAULT_HISTORY_TURNS, MAX_HISTORY_TURNS, type WidgetKeys, type WidgetSettings } from './widget-keys.ts';
export { createWidgetStatusHandler, createWidgetStreamHandler, createWidgetUndoHandler, LIVE_EDIT_QUESTION, MAX_WIDGET_BODY_BYTES, MAX_WIDGET_TOOL_ROUNDS, MAX_WIDGET_TURNS, MAX_WIDGET_TURN_CHARS, type WidgetSkills } from './stream-handler.ts';
export { createBundleHandler, WIDGET_BUNDLE_PATH } from './bundle-handler.ts';
export { createWidgetEdits, UNDO_CLAIM_STALE_MS, UNDO_TOKEN_PATTERN, WIDGET_EDIT_TTL_MS, type WidgetEdit, type WidgetEdits } from './widget-edits.ts';
