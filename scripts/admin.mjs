#!/usr/bin/env node
// `npm run admin -- <resource> <verb> …`: the operator's commands, run by the deployable that owns the
// resource, so no deployable imports another: people (`user`) are the console's; dead letters (the events a
// consumer could not read) kit's, which every deployable's consumers write; organizations and keys (and the
// usage text for anything else) the gateway's.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const clis = { user: 'services/console/src/cli/admin.ts', 'dead-letters': 'packages/kit/src/cli/dead-letters.ts' };
const cli = Object.hasOwn(clis, args[0] ?? '') ? clis[args[0]] : 'gateway/src/cli/admin.ts';
const child = spawn(process.execPath, ['--conditions=source', '--import', 'tsx', join(root, cli), ...args], { stdio: 'inherit' });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
