import { createHash } from 'node:crypto';
import parseSpdx from 'spdx-expression-parse';

/** Licenses that install without asking: the list, by SPDX id. */
export const PERMISSIVE_LICENSES = ['MIT', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', 'ISC'] as const;

export interface LicenseVerdict {
  /** The `license` of package.json as written, or null when it declares none. */
  spdx: string | null;
  /** The LICENSE file's text when the package has one. */
  text: string | null;
  /** True when the package may install without the admin acknowledging its license. */
  permissive: boolean;
  /** One line for the screen and the job's license step. */
  summary: string;
}

/**
 * Classifies a package's license: an SPDX expression is permissive when every license it needs
 * is in the permissive list (`OR` needs one side, `AND` both; an exception or `+` is not
 * permissive). Anything else, or nothing, must be acknowledged.
 */
export function classifyLicense(manifest: unknown, licenseText: string | null): LicenseVerdict {
  const declared = declaredLicense(manifest);
  if (!declared) return { spdx: null, text: licenseText, permissive: false, summary: licenseText ? 'No SPDX license in package.json; see the license text' : 'No license declared' };
  let info: parseSpdx.Info;
  try {
    info = parseSpdx(declared);
  } catch {
    return { spdx: declared, text: licenseText, permissive: false, summary: `"${declared}" is not an SPDX license expression` };
  }
  const permissive = isPermissive(info);
  return { spdx: declared, text: licenseText, permissive, summary: permissive ? `${declared} (permissive)` : `${declared} needs acknowledgement` };
}

function isPermissive(info: parseSpdx.Info): boolean {
  if ('conjunction' in info) return info.conjunction === 'or' ? isPermissive(info.left) || isPermissive(info.right) : isPermissive(info.left) && isPermissive(info.right);
  return !info.exception && !info.plus && (PERMISSIVE_LICENSES as readonly string[]).includes(info.license);
}

function declaredLicense(manifest: unknown): string | null {
  const license = (manifest as { license?: unknown } | null)?.license;
  if (typeof license === 'string' && license.trim()) return license.trim();
  // The legacy `{ type }` form some old packages still use.
  const type = (license as { type?: unknown } | undefined)?.type;
  return typeof type === 'string' && type.trim() ? type.trim() : null;
}

/** What an acknowledgement covered: the license text's hash (whitespace-insensitive), or null without one. */
export function licenseTextHash(text: string | null): string | null {
  return text ? createHash('sha256').update(text.replace(/\s+/g, ' ').trim()).digest('hex') : null;
}
