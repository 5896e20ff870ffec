/**
 * How many billed parts a message is, as carriers count them: GSM-7 text fits 160 characters in one part
 * and 153 per part once split (the rest is the concatenation header); anything outside GSM-7 is sent as
 * UCS-2, 70 characters alone or 67 per part. Characters of the GSM-7 extension table count twice.
 */
const gsmBasic = new Set(
  '@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !"#¤%&\'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà',
);
const gsmExtension = new Set('^{}\\[~]|€\f');

export type SmsEncoding = 'GSM-7' | 'UCS-2';

export function smsEncoding(body: string): SmsEncoding {
  for (const char of body) if (!gsmBasic.has(char) && !gsmExtension.has(char)) return 'UCS-2';
  return 'GSM-7';
}

export function smsSegments(body: string): number {
  if (smsEncoding(body) === 'GSM-7') {
    let septets = 0;
    for (const char of body) septets += gsmExtension.has(char) ? 2 : 1;
    return septets <= 160 ? 1 : Math.ceil(septets / 153);
  }
  // UCS-2 counts UTF-16 code units: an emoji outside the basic plane takes two.
  const units = body.length;
  return units <= 70 ? 1 : Math.ceil(units / 67);
}
