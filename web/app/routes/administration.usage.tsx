import type { ActionFunctionArgs, LoaderFunctionArgs, MetaFunction } from '@remix-run/node';
import { Form, Link, useActionData, useLoaderData, useNavigation } from '@remix-run/react';
import { readAdminForm } from '~/auth/form.server.ts';
import { Button, Card, DataTable, Field, inputClasses, Name, Notice, PageHeader } from '~/components/ui/index.ts';
import { serverCaller } from '~/trpc/handler.server.ts';

export const meta: MetaFunction = () => [{ title: 'LLM usage' }];

/** Days a page of totals covers. */
const PAGE_DAYS = 7;
const dayOf = (at: number) => new Date(at).toISOString().slice(0, 10);

export async function loader({ request, context }: LoaderFunctionArgs) {
  const params = new URL(request.url).searchParams;
  const dimension = params.get('by') === 'caller' ? 'caller' : 'agent';
  const asked = params.get('to') ?? '';
  const to = /^\d{4}-\d{2}-\d{2}$/.test(asked) && !Number.isNaN(Date.parse(asked)) ? asked : dayOf(Date.now());
  const from = dayOf(Date.parse(to) - (PAGE_DAYS - 1) * 86_400_000);
  const caller = await serverCaller(request, context.services);
  const [totals, prices] = await Promise.all([caller.usage.totals({ dimension, from, to }), caller.usage.prices()]);
  return { dimension, from, to, earlier: dayOf(Date.parse(from) - 86_400_000), totals, prices };
}

/** `model, input USD per million, output USD per million`, one model a line. */
function parsePrices(text: string): { rows: { model: string; inputPerMillion: number; outputPerMillion: number }[] } | { error: string } {
  const rows = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    const [model = '', input = '', output = ''] = line.split(',').map((cell) => cell.trim());
    const inputPerMillion = Number(input);
    const outputPerMillion = Number(output);
    if (!model || input === '' || output === '' || !Number.isFinite(inputPerMillion) || !Number.isFinite(outputPerMillion)) return { error: `Line ${i + 1}: write “model, input price, output price” (US dollars per million tokens)` };
    rows.push({ model, inputPerMillion, outputPerMillion });
  }
  return { rows };
}

export async function action({ request, context }: ActionFunctionArgs) {
  const form = await readAdminForm(request, context.services);
  const parsed = parsePrices(String(form.get('prices') ?? ''));
  if ('error' in parsed) return { ok: false, message: parsed.error };
  try {
    const saved = await (await serverCaller(request, context.services)).usage.setPrices(parsed.rows);
    return { ok: true, message: `Saved ${saved.length} price(s); calls are priced with them from now on.` };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

const usd = (value: number | undefined) => (value === undefined ? '—' : `$${value.toFixed(value < 0.01 ? 6 : 2)}`);
const count = (value: number) => value.toLocaleString('en');

export default function Usage() {
  const page = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  const busy = useNavigation().formData != null;
  const other = page.dimension === 'agent' ? 'caller' : 'agent';
  return (
    <>
      <PageHeader title="LLM usage" description="Tokens and cost of the LLM calls of ended runs, per day (UTC), by agent or by caller. Costs come from the price table below as it was when each call was made." />
      <div className="space-y-6">
        <DataTable
          label={`Usage by ${page.dimension}, ${page.from} to ${page.to}`}
          columns={['Day', page.dimension === 'agent' ? 'Agent' : 'Caller', 'Runs', 'LLM calls', 'Input tokens', 'Output tokens', 'Cost']}
          isEmpty={page.totals.length === 0}
          empty={`No ended run made LLM calls from ${page.from} to ${page.to}.`}
          pager={
            <nav aria-label="Pages of usage" className="flex flex-wrap gap-4 text-sm">
              <Link to={`?by=${page.dimension}&to=${page.earlier}`}>Earlier {PAGE_DAYS} days</Link>
              <Link to={`?by=${other}&to=${page.to}`}>By {other}</Link>
            </nav>
          }
        >
          {page.totals.map((row) => (
            <tr key={`${row.day}/${row.key}`}>
              <td>{row.day}</td>
              <td>
                <Name>{row.key}</Name>
              </td>
              <td>{count(row.runs)}</td>
              <td>{count(row.calls)}</td>
              <td>{count(row.inputTokens)}</td>
              <td>{count(row.outputTokens)}</td>
              <td>{usd(row.costUsd)}</td>
            </tr>
          ))}
        </DataTable>
        <Card title="Price table" description="US dollars per million tokens, per model as the LLM provider is configured with it. A model without a price is counted in tokens only.">
          {result ? <Notice tone={result.ok ? 'success' : 'warning'} role="status">{result.message}</Notice> : null}
          <Form method="post" className="space-y-4">
            <Field id="usage-prices" label="Prices (model, input, output — one model a line)">
              <textarea id="usage-prices" name="prices" rows={6} className={inputClasses} defaultValue={page.prices.map((p) => `${p.model}, ${p.inputPerMillion}, ${p.outputPerMillion}`).join('\n')} placeholder="gpt-4o-mini, 0.15, 0.6" />
            </Field>
            <Button type="submit" busy={busy}>
              Save prices
            </Button>
          </Form>
        </Card>
      </div>
    </>
  );
}
