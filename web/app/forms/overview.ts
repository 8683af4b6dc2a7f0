import { z } from 'zod';
import type { FeatureFlagName } from '@service/core/settings';

/**
 * The Overview page's forms: the runtime switches and publishing the example agents.
 * Client-safe: the switch names are checked against core's type, not imported from it.
 */

/** Every runtime switch, with what it changes (the record's type requires one entry per switch). */
export const SWITCHES: Record<FeatureFlagName, { label: string; what: string }> = {
  a2aHttpEnabled: { label: 'A2A over HTTP', what: 'Other instances and A2A clients call this one’s agents at /api/a2a and /a2a/<vendor>/<slug>; off, those answer 404.' },
  aguiExternalEnabled: { label: 'External AG-UI stream', what: 'A2A clients that ask for it get AG-UI events in each streamed event, and /api/a2a/resume answers; off, it answers 404.' },
};

export const SWITCH_NAMES = Object.keys(SWITCHES) as [FeatureFlagName, ...FeatureFlagName[]];

export const switchForm = z.object({
  intent: z.literal('switch'),
  flag: z.enum(SWITCH_NAMES, { error: 'Choose a switch.' }),
  enabled: z.enum(['true', 'false'], { error: 'Choose on or off.' }).transform((value) => value === 'true'),
});

export const publishExamplesForm = z.object({
  intent: z.literal('publish-examples'),
});
