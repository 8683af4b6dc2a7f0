/** `@service/core[/x]` as a relative import from `fromDir` of its compiled module in core/dist. */
export function coreDistPath(specifier: string, fromDir: string): string;
