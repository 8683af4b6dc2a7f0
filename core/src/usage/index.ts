export { createPriceTable, LLM_PRICES_SETTING, priced, type ModelPrice, type PriceTable } from './prices.ts';
export { createUsageRollups, MAX_USAGE_DAYS, type UsageDimension, type UsageRollups, type UsageTotal } from './rollups.ts';
