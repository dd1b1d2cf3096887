import { defineConfig } from 'vitest/config';
import { SkipReporter } from './test/support/SkipReporter';

export default defineConfig({
	test: {
		include: ['test/**/*.test.ts'],
		// Sapphire's container is process-wide: every file gets its own worker.
		isolate: true,
		pool: 'forks',
		testTimeout: 30_000,
		hookTimeout: 30_000,
		// The run ends with how many tests were skipped and why (the Redis and PostgreSQL suites need their servers).
		reporters: ['default', new SkipReporter()]
	}
});
