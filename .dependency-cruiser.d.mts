/** The boundary rules' temporary allowlist (.dependency-cruiser.mjs), as the lint tests read it. */
export declare const TEMPORARY_ALLOWLIST: { rule: string; from: string; to?: string; uses?: string; why: string }[];
declare const config: unknown;
export default config;
