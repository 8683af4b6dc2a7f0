export { createSettings, DEFAULT_AGENT_SETTING, type Settings } from './settings.ts';
