import type { A2aPermission } from '@service/core/auth';
import { z } from 'zod';
import { httpUrl, requiredText, slugId } from './fields.ts';

/** The grants an A2A client may hold: core's A2A_PERMISSIONS (`sameAsCore` fails to compile when the two lists differ). */
export const A2A_PERMISSION_NAMES = ['list', 'read', 'execute'] as const;
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const sameAsCore: Same<A2aPermission, (typeof A2A_PERMISSION_NAMES)[number]> = true;
void sameAsCore;

export const clientName = requiredText('a name', 100);

export const peerId = slugId('the peer id');
export const peerName = requiredText('a name', 100);
export const peerBaseUrl = httpUrl('the peer’s base URL');
export const peerClientId = requiredText('the client id the peer issued', 100);
export const peerClientSecret = requiredText('the client secret the peer issued', 500);
export const peerProtocol = z.enum(['auto', '0.3']);
