import { z } from 'zod';
import { assistantAgent, historyTurns } from '../schemas/assistants.ts';
import { instanceId } from '../schemas/connectors.ts';
import { listOf } from '../schemas/fields.ts';

/** An instance's widget settings; its own site's origin is always allowed and is not typed here. */
export const widgetSettingsForm = z.object({
  intent: z.literal('configure'),
  instanceId,
  allowedOrigins: listOf('origins', 50, 300),
  historyTurns,
  assistantAgent,
});

/** Generate, rotate or revoke an instance's widget key. */
export const widgetKeyForm = z.object({
  intent: z.enum(['rotate', 'revoke']),
  instanceId,
});
