import { baseEnvSchema, portSchema } from '@voice/kit';

export const envSchema = baseEnvSchema.extend({
  PORT: portSchema(8081),
});

export type TelephonyEnv = ReturnType<typeof envSchema.parse>;
