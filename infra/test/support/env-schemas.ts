// The env schema of every deployable, by its name: what the infra tests check manifests, READMEs and
// production settings against.
import type { z } from 'zod';
import { envSchema as gateway } from '../../../gateway/src/env.js';
import { envSchema as console } from '../../../services/console/src/env.js';
import { envSchema as leads } from '../../../services/leads/src/env.js';
import { envSchema as mcp } from '../../../services/mcp/src/env.js';
import { envSchema as recall } from '../../../services/recall/src/env.js';
import { envSchema as telephony } from '../../../services/telephony/src/env.js';
import { envSchema as webhooks } from '../../../services/webhooks/src/env.js';

export const envSchemas = { gateway, telephony, leads, recall, mcp, webhooks, console } satisfies Record<string, z.ZodObject>;
