import { defineConfig } from 'vitest/config';

export default defineConfig({
	test: {
		include: ['test/**/*.test.ts'],
		// Sapphire's container is process-wide: every file gets its own worker.
		isolate: true,
		pool: 'forks',
		testTimeout: 30_000,
		hookTimeout: 30_000
	}
});
