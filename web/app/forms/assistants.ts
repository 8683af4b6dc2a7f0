import { z } from 'zod';
import { instanceId } from './connectors.ts';
import { listOf } from './fields.ts';

/** core's MAX_HISTORY_TURNS (widget/widget-keys.ts); this module is client-safe, so it is repeated here. */
export const MAX_HISTORY_TURNS = 50;

/** One origin a widget may also be embedded on (an admin host, a preview). */
export const allowedOrigin = z.string().max(300, 'Each origin has at most 300 characters.');

/** The most conversation turns an instance passes to the LLM. */
export const historyTurns = z
  .number({ error: 'Enter a number of turns.' })
  .int('Use a whole number of turns.')
  .min(1, 'Keep at least 1 turn.')
  .max(MAX_HISTORY_TURNS, `Use at most ${MAX_HISTORY_TURNS} turns.`);

/** An instance's widget settings; its own site's origin is always allowed and is not typed here. */
export const widgetSettingsForm = z.object({
  intent: z.literal('configure'),
  instanceId,
  allowedOrigins: listOf('origins', 50, 300),
  historyTurns,
});

/** Generate, rotate or revoke an instance's widget key. */
export const widgetKeyForm = z.object({
  intent: z.enum(['rotate', 'revoke']),
  instanceId,
});
