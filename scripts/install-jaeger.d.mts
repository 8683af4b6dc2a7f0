/** Types of scripts/install-jaeger.mjs, for the test helper that imports it. */
export const JAEGER_MODULE: string;
export const JAEGER_VERSION: string;
export function jaegerBinaryName(): string;
export function goCommand(): string | undefined;
export function findJaeger(): Promise<string | undefined>;
export function installJaeger(log: (line: string) => void): Promise<string>;
export function ensureJaeger(log: (line: string) => void): Promise<string>;
