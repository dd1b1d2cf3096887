#!/usr/bin/env node
import { main } from './cli/program';

void main(process.argv.slice(2)).then((code) => {
	process.exitCode = code;
	// The store is closed, but a client may still hold a timer (@keyv/redis's connect timeout, 2 s): leave once the output is written.
	setTimeout(() => process.stdout.write('', () => process.exit(code)), 100).unref();
});
