// An invoice, above all a draft before it is sent: its lines and totals. Sending stays out of the App: it
// is an approval a person gives in the console, Telegram or Slack.
import type { AppDefinition } from './document.js';

export const invoiceApp: AppDefinition = {
  uri: 'ui://voice/invoice.html',
  name: 'invoice',
  title: 'Invoice',
  description: 'An invoice as a document: its lines, subtotal, tax and total, due date and memo; a draft says how it gets sent.',
  tools: ['service_draft_invoice', 'service_get_invoice'],
  script: `
startView('voice-invoice', (invoice) => {
  const amount = (minor) => money(minor, invoice.currency);
  const rate = (bps) => new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 2 }).format(bps / 10000);
  view.append(
    h('h1', {}, invoice.status === 'draft' ? 'Invoice draft' : 'Invoice'),
    h('p', { class: 'badges' }, badge(invoice.status)),
    details('The invoice', [
      ['Invoice', code(invoice.id)],
      ['Customer', invoice.lead_id ? code(invoice.lead_id) : 'Deleted lead'],
      ['Due', calendarDate(invoice.due_date)],
      ['Currency', invoice.currency],
      ['Created', dateTime(invoice.created_at)],
      ['Sent', dateTime(invoice.sent_at)],
      ['Paid', dateTime(invoice.paid_at)],
      ['Voided', dateTime(invoice.voided_at)],
    ]),
    invoice.lines.length === 0
      ? section('Lines', muted('No lines yet.'))
      : table(
          'Lines',
          [['Description'], ['Quantity', true], ['Unit price', true], ['Tax rate', true], ['Amount', true]],
          invoice.lines.map((line) => [line.description, String(line.quantity), amount(line.unit_amount), rate(line.tax_rate_bps), amount(line.subtotal)]),
          [
            ['Subtotal', amount(invoice.subtotal)],
            ['Tax', amount(invoice.tax)],
            ['Total', amount(invoice.total)],
          ],
        ),
    invoice.memo ? section('Memo', h('p', { class: 'item-body' }, invoice.memo)) : null,
    invoice.status === 'draft' ? h('p', { class: 'hint' }, 'Not sent. Sending it waits for a person’s approval in the console.') : null,
  );
});
`,
};
