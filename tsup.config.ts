import { defineConfig } from 'tsup';

export default defineConfig({
	// `cli` is the `sapphire-memory` bin; tsup keeps its shebang and marks the file executable.
	entry: { index: 'src/index.ts', register: 'src/register.ts', cli: 'src/ops/cli.ts' },
	format: ['cjs', 'esm'],
	dts: true,
	clean: true,
	// One shared chunk, so `/register` and the root share one engine and one MemoryError in CommonJS too.
	splitting: true,
	sourcemap: true,
	target: 'node20',
	outDir: 'dist',
	// The host's own discord.js and Sapphire must be the ones the pieces register with.
	external: [/^discord\.js$/, /^@sapphire\//, /^@keyv\//, 'keyv', 'zod']
});
