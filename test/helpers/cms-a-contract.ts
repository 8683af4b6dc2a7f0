/**
 * Runs the `_mcp_tools` contract fixture (cms-plugins/cms-a/service_widget/modules/service_widget_tools/tests/fixtures) against
 * an implementation at `<siteUrl>/_mcp_tools` through the MCP SDK's client, step by step, and
 * says where it departs from the fixture. The TypeScript double and the Drupal module's PHP
 * endpoint both answer it, so the two cannot drift apart unnoticed.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { contractFixture } from './cms-a-double.ts';

/** The fixture's expectations: `{ $type }` matches a JSON type, `{ $bind }` an integer bound by name; all else is equal, keys included. */
export function departures(expected: unknown, actual: unknown, bound: Map<string, number>, at = '$'): string[] {
  if (expected && typeof expected === 'object' && !Array.isArray(expected)) {
    const marker = expected as { $type?: string; $bind?: string };
    if (marker.$type !== undefined) return typeof actual === marker.$type ? [] : [`${at}: expected a ${marker.$type}, got ${JSON.stringify(actual)}`];
    if (marker.$bind !== undefined) {
      if (!Number.isInteger(actual)) return [`${at}: expected an integer (${marker.$bind}), got ${JSON.stringify(actual)}`];
      const known = bound.get(marker.$bind);
      if (known === undefined) bound.set(marker.$bind, actual as number);
      return known === undefined || known === actual ? [] : [`${at}: expected ${marker.$bind} = ${known}, got ${String(actual)}`];
    }
    if (!actual || typeof actual !== 'object' || Array.isArray(actual)) return [`${at}: expected an object, got ${JSON.stringify(actual)}`];
    const keys = new Set([...Object.keys(expected), ...Object.keys(actual)]);
    return [...keys].flatMap((key) =>
      key in expected ? (key in actual ? departures((expected as Record<string, unknown>)[key], (actual as Record<string, unknown>)[key], bound, `${at}.${key}`) : [`${at}.${key}: missing`]) : [`${at}.${key}: not in the contract`],
    );
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) return [`${at}: expected ${expected.length} items, got ${JSON.stringify(actual)}`];
    return expected.flatMap((item, index) => departures(item, actual[index], bound, `${at}[${index}]`));
  }
  return Object.is(expected, actual) ? [] : [`${at}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}

/** How a real site names what the fixture names: its node ids, and the URLs of its images. */
export interface ContractBindings {
  nids: Record<string, string>;
  urls: Record<string, string>;
}

/** The fixture's value with node ids (`nid` members) and image URLs replaced by the site's. */
export function bindFixture<T>(value: T, bindings: ContractBindings, key?: string): T {
  if (typeof value === 'string') return (key === 'nid' ? (bindings.nids[value] ?? value) : (bindings.urls[value] ?? value)) as T;
  if (Array.isArray(value)) return value.map((item) => bindFixture(item, bindings)) as T;
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, bindFixture(item, bindings, name)])) as T;
  return value;
}

/** Every step of the fixture, in order, on a fresh implementation: the departures of each step (none when it conforms). */
export async function runContract(siteUrl: string, key: string, bindings: ContractBindings = { nids: {}, urls: {} }): Promise<{ step: string; departures: string[] }[]> {
  const client = new Client({ name: 'cms-a-contract', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${siteUrl}/_mcp_tools`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  const bound = new Map<string, number>();
  const report: { step: string; departures: string[] }[] = [];
  try {
    for (const step of bindFixture(contractFixture().steps, bindings)) {
      const result = await client.callTool({ name: step.tool, arguments: step.arguments });
      const text = (result.content as { type: string; text?: string }[]).find((part) => part.type === 'text')?.text ?? '';
      let found: string[];
      if (step.error !== undefined) {
        found = result.isError === true && new RegExp(step.error, 'i').test(text) ? [] : [`expected an error matching /${step.error}/i, got ${result.isError ? 'error' : 'result'} ${text}`];
      } else if (result.isError) {
        found = [`expected a result, got the error ${text}`];
      } else {
        found = departures(step.result, result.structuredContent ?? JSON.parse(text), bound);
      }
      report.push({ step: step.name, departures: found });
    }
  } finally {
    await client.close();
  }
  return report;
}

/** One tool call on `<siteUrl>/_mcp_tools` through the MCP SDK's client: its structured result, or its error text. */
export async function callSiteTool(siteUrl: string, key: string, name: string, args: Record<string, unknown>): Promise<{ result?: { nodes: { nid: string }[] } & Record<string, unknown>; error?: string }> {
  const client = new Client({ name: 'cms-a-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${siteUrl}/_mcp_tools`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }));
  try {
    const result = await client.callTool({ name, arguments: args });
    const text = (result.content as { type: string; text?: string }[]).find((part) => part.type === 'text')?.text ?? '';
    return result.isError ? { error: text } : { result: result.structuredContent ?? JSON.parse(text) };
  } finally {
    await client.close();
  }
}
