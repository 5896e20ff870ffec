import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const version = 'v1.';

/**
 * Encrypts endpoint signing secrets at rest (AES-256-GCM). They must be readable to sign, so they cannot
 * be hashed like API keys; encrypted, a copy of the database alone does not let anyone forge deliveries.
 * The endpoint id is bound in as associated data, so a sealed secret cannot be moved to another endpoint.
 */
export class SecretBox {
  private readonly key: Buffer;

  constructor(keyBase64: string) {
    this.key = Buffer.from(keyBase64, 'base64');
    if (this.key.length !== 32) throw new Error('the secret encryption key must be 32 bytes, base64-encoded');
  }

  seal(plain: string, endpointId: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv).setAAD(Buffer.from(endpointId));
    const ciphertext = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return version + Buffer.concat([iv, cipher.getAuthTag(), ciphertext]).toString('base64');
  }

  open(sealed: string, endpointId: string): string {
    if (!sealed.startsWith(version)) throw new Error('not a sealed secret');
    const raw = Buffer.from(sealed.slice(version.length), 'base64');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12)).setAAD(Buffer.from(endpointId));
    decipher.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
  }
}
