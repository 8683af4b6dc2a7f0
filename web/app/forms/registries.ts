import type { RoutingMode } from '@service/core/registry';
import { z } from 'zod';
import { checkbox, httpUrl, optionalText, slugId } from '../schemas/fields.ts';

/**
 * Environment › Registries: the routing mode and the public and private destinations. Core
 * validates the settings again (`registrySettingsInput`); these limits are the same or tighter.
 * Token fields are write-only: empty keeps the stored token, a value replaces it, "clear" drops it.
 */

/** Core's ROUTING_MODES: `sameAsCore` fails to compile when the two lists differ. */
export const ROUTING_MODE_NAMES = ['scope-based', 'shared-acl'] as const;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAsCore: Same<RoutingMode, (typeof ROUTING_MODE_NAMES)[number]> = true;
void sameAsCore;

/** Core takes tokens of up to 4096 characters. */
const token = (what: string) => optionalText(what, 4096);

export const registriesForm = z
  .object({
    routingMode: z.enum(ROUTING_MODE_NAMES, { error: 'Choose a routing mode.' }),
    publicRegistryUrl: httpUrl('the public registry URL'),
    publicPublishToken: token('a publish token'),
    publicClearPublishToken: checkbox,
    publicReadToken: token('a read token'),
    publicClearReadToken: checkbox,
    privateEnabled: checkbox,
    // Required only while the private destination is on (below); the fields stay in the page either way.
    privateId: slugId('the destination id').optional(),
    privateRegistryUrl: httpUrl('the private registry URL').optional(),
    privatePublishToken: token('a publish token'),
    privateClearPublishToken: checkbox,
    privateReadToken: token('a read token'),
    privateClearReadToken: checkbox,
  })
  .superRefine((value, context) => {
    if (!value.privateEnabled) return;
    if (!value.privateId) context.addIssue({ code: 'custom', path: ['privateId'], message: 'Enter the destination id.' });
    else if (value.privateId === 'public') context.addIssue({ code: 'custom', path: ['privateId'], message: 'The private destination id cannot be "public".' });
    if (!value.privateRegistryUrl) context.addIssue({ code: 'custom', path: ['privateRegistryUrl'], message: 'Enter the private registry URL.' });
  });

/** The form fields that carry a token: never sent back to the page, not even in a refusal. */
export const TOKEN_FIELDS = ['publicPublishToken', 'publicReadToken', 'privatePublishToken', 'privateReadToken'] as const;

type TokenChange = { action: 'keep' } | { action: 'replace'; value: string } | { action: 'clear' };

function tokenChange(value: string | undefined, clear: boolean): TokenChange {
  if (clear) return { action: 'clear' };
  return value ? { action: 'replace', value } : { action: 'keep' };
}

/** The settings core's `registry.settings.save` takes, from a valid form. */
export function registrySettings(value: z.output<typeof registriesForm>) {
  return {
    routingMode: value.routingMode,
    public: {
      registryUrl: value.publicRegistryUrl,
      publishToken: tokenChange(value.publicPublishToken, value.publicClearPublishToken),
      readToken: tokenChange(value.publicReadToken, value.publicClearReadToken),
    },
    private: value.privateEnabled
      ? {
          id: value.privateId ?? '',
          registryUrl: value.privateRegistryUrl ?? '',
          publishToken: tokenChange(value.privatePublishToken, value.privateClearPublishToken),
          readToken: tokenChange(value.privateReadToken, value.privateClearReadToken),
        }
      : null,
  };
}
