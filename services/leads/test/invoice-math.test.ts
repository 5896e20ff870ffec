import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { divideRoundHalfUp, priceInvoice, priceLine } from '../src/domain/invoice-math.js';

describe('invoice arithmetic', () => {
  it('rounds a division half-up', () => {
    assert.equal(divideRoundHalfUp(5n, 10n), 1n); // 0.5 → 1
    assert.equal(divideRoundHalfUp(4n, 10n), 0n); // 0.4 → 0
    assert.equal(divideRoundHalfUp(15n, 10n), 2n); // 1.5 → 2
    assert.equal(divideRoundHalfUp(25n, 10n), 3n); // 2.5 → 3 (not banker's 2)
    assert.equal(divideRoundHalfUp(0n, 7n), 0n);
  });

  it('prices a line: quantity × unit, then tax in basis points, each rounded half-up', () => {
    // 3 × 333 = 999; 999 × 8.25 % = 82.4175 → 82
    assert.deepEqual(priceLine({ description: 'Widget', quantity: 3, unit_amount: 333, tax_rate_bps: 825 }), {
      description: 'Widget',
      quantity: 3,
      unit_amount: 333,
      tax_rate_bps: 825,
      subtotal: 999,
      tax: 82,
      total: 1081,
    });
    // 1 × 4 at 12.5 % = 0.5 → 1: the half goes up
    assert.equal(priceLine({ description: 'Half', quantity: 1, unit_amount: 4, tax_rate_bps: 1250 }).tax, 1);
    // 1.5 h × 1999 = 2998.5 → 2999
    assert.equal(priceLine({ description: 'Hours', quantity: 1.5, unit_amount: 1999, tax_rate_bps: 0 }).subtotal, 2999);
    // 0.333 × 100 = 33.3 → 33 (quantities exact in thousandths, no float drift)
    assert.equal(priceLine({ description: 'Bit', quantity: 0.333, unit_amount: 100, tax_rate_bps: 0 }).subtotal, 33);
    // 2.675 × 100 = 267.5 → 268, although 2.675 * 100 in floating point is 267.49999…
    assert.equal(priceLine({ description: 'Float trap', quantity: 2.675, unit_amount: 100, tax_rate_bps: 0 }).subtotal, 268);
  });

  it('sums rounded lines into the invoice totals', () => {
    const priced = priceInvoice([
      { description: 'A', quantity: 1, unit_amount: 4, tax_rate_bps: 1250 },
      { description: 'B', quantity: 1, unit_amount: 4, tax_rate_bps: 1250 },
    ]);
    // Per line 4 + 0.5→1; two lines: subtotal 8, tax 2 (rounding the sum instead would give 1).
    assert.equal(priced.subtotal, 8n);
    assert.equal(priced.tax, 2n);
    assert.equal(priced.total, 10n);
  });

  it('refuses totals beyond exact integers', () => {
    const huge = Array.from({ length: 100 }, () => ({
      description: 'Big',
      quantity: 1_000_000,
      unit_amount: 1_000_000_000_000,
      tax_rate_bps: 0,
    }));
    assert.throws(() => priceInvoice(huge), { code: 'invalid_request' });
  });

  it('prices an empty draft as zero', () => {
    const priced = priceInvoice([]);
    assert.deepEqual([priced.subtotal, priced.tax, priced.total], [0n, 0n, 0n]);
  });
});
