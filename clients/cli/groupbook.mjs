#!/usr/bin/env node
// `npx groupbook …`: runs the command-line tool (main.ts) through tsx, which the package depends on.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('./main.ts');
process.exitCode = await main(process.argv.slice(2));
