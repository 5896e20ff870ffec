/**
 * Money as people type and read it, against the platform's integer minor units (cents): how many decimals a
 * currency has is ISO 4217's, as the runtime's Intl knows it (USD 2, JPY 0, KWD 3), so an amount typed in
 * major units becomes the exact integer the operations take, and one they answer reads as it was typed.
 */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    // A code Intl refuses is the operation's to refuse (its `param` names the field); shown as cents meanwhile.
    return 2;
  }
}

/**
 * A decimal as typed (`12.50`, `12,5`, `1 200`) scaled by `digits` decimals to an exact integer, or undefined when it is not such a number (the caller hands the text to the operation, whose
 * refusal names the field). No floating point: `0.29` is 29, not 28.999….
 */
export function scaledInteger(text: string, digits: number): number | undefined {
  const compact = text.replace(/[\s\u00a0]/g, '').replace(',', '.');
  const match = /^(\d{1,15})(?:\.(\d*))?$/.exec(compact);
  if (!match) return undefined;
  const fraction = match[2] ?? '';
  if (fraction.length > digits) return undefined;
  const value = Number(`${match[1]}${fraction.padEnd(digits, '0')}`);
  return Number.isSafeInteger(value) ? value : undefined;
}

/** An integer of `digits` decimals as typed back into a form: `1250` with 2 digits is `12.50`. */
export function scaledText(value: number, digits: number): string {
  if (digits === 0) return String(value);
  const sign = value < 0 ? '-' : '';
  const text = String(Math.abs(value)).padStart(digits + 1, '0');
  return `${sign}${text.slice(0, -digits)}.${text.slice(-digits)}`;
}

/** Minor units as major units for the formatter (`format.money`), e.g. 1250 USD → 12.5. */
export const majorUnits = (minor: number, currency: string) => minor / 10 ** currencyDigits(currency);
