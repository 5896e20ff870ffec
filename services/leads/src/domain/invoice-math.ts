import { ApiError } from '@voice/kit';
import type { InvoiceLine, InvoiceLineInput } from '@voice/proto';

/**
 * Invoice arithmetic, in integer minor units and exact (BigInt), never trusted from the client:
 *
 *   line subtotal = quantity × unit_amount, rounded half-up to a minor unit
 *   line tax      = line subtotal × tax_rate_bps / 10 000, rounded half-up to a minor unit
 *   line total    = line subtotal + line tax
 *   invoice subtotal, tax, total = the sums of the lines' values
 *
 * Rounding happens per line, so each printed line adds up and the invoice is the sum of what it shows
 * (e.g. 3 × 333 at 825 bps: subtotal 999, tax 82.4175 → 82, total 1081). Quantities have at most three
 * decimals and are exact in thousandths. Amounts are non-negative, so half-up and half-away-from-zero agree.
 */

/** round(numerator / denominator), halves up, for numerator ≥ 0 and denominator > 0. */
export function divideRoundHalfUp(numerator: bigint, denominator: bigint): bigint {
  return (2n * numerator + denominator) / (2n * denominator);
}

export function priceLine(line: InvoiceLineInput): InvoiceLine {
  const quantityThousandths = BigInt(Math.round(line.quantity * 1000));
  const subtotal = divideRoundHalfUp(quantityThousandths * BigInt(line.unit_amount), 1000n);
  const tax = divideRoundHalfUp(subtotal * BigInt(line.tax_rate_bps), 10_000n);
  return {
    description: line.description,
    quantity: line.quantity,
    unit_amount: line.unit_amount,
    tax_rate_bps: line.tax_rate_bps,
    subtotal: toSafeNumber(subtotal),
    tax: toSafeNumber(tax),
    total: toSafeNumber(subtotal + tax),
  };
}

export interface PricedInvoice {
  lines: InvoiceLine[];
  subtotal: bigint;
  tax: bigint;
  total: bigint;
}

export function priceInvoice(lines: InvoiceLineInput[]): PricedInvoice {
  const priced = lines.map(priceLine);
  const sum = (pick: (line: InvoiceLine) => number) => priced.reduce((total, line) => total + BigInt(pick(line)), 0n);
  const result = { lines: priced, subtotal: sum((line) => line.subtotal), tax: sum((line) => line.tax), total: sum((line) => line.total) };
  toSafeNumber(result.total);
  return result;
}

function toSafeNumber(value: bigint): number {
  if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new ApiError('invalid_request', 'The invoice total is too large; split it into several invoices.', { param: 'lines' });
  }
  return Number(value);
}
