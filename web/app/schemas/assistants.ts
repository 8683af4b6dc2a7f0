import { z } from 'zod';

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

/** The agent whose skills the widget's turn may call (empty: only the content editor). */
export const assistantAgent = z
  .string()
  .trim()
  .max(214, 'An agent package name has at most 214 characters.')
  .regex(new RegExp('^(@[a-z0-9](?:[a-z0-9._]|-)*/[a-z0-9](?:[a-z0-9._]|-)*)?$'), 'Enter an agent package name such as @acme/researcher, or leave it empty.')
  .optional();
