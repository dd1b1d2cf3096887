import { relative } from 'node:path';
import type { Reporter, TestModule, Vitest } from 'vitest/node';

/** How a test that skipped without a reason is listed: `it.skip`, `skipIf`, a `-t` filter, or an `.only` elsewhere. */
const NO_REASON = 'no reason given (it.skip, skipIf, a -t filter or an .only elsewhere)';

/**
 * Ends a run with how many tests were skipped and why, from the reason each one gave (`context.skip(reason)`), so that a
 * machine without the test servers never passes part of the suite over in silence. It prints after vitest's own summary.
 */
export class SkipReporter implements Reporter {
	private vitest?: Vitest;

	public onInit(vitest: Vitest): void {
		this.vitest = vitest;
	}

	public onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
		const reasons = new Map<string, { count: number; files: Set<string> }>();
		let total = 0;
		for (const module of modules) {
			for (const test of module.children.allTests()) {
				total++;
				const result = test.result();
				if (result.state !== 'skipped') continue;
				const reason = reasons.get(result.note ?? NO_REASON) ?? { count: 0, files: new Set<string>() };
				reason.count++;
				reason.files.add(relative(process.cwd(), module.moduleId));
				reasons.set(result.note ?? NO_REASON, reason);
			}
		}
		if (total === 0) return;
		const skipped = [...reasons.values()].reduce((sum, reason) => sum + reason.count, 0);
		const log = (line: string) => (this.vitest ? this.vitest.logger.log(line) : console.log(line));
		if (skipped === 0) return log(` All ${total} tests ran: none was skipped.\n`);

		log(` Skipped ${skipped} of ${total} tests:`);
		for (const [reason, { count, files }] of [...reasons].sort(([, a], [, b]) => b.count - a.count)) {
			const where = reason === NO_REASON ? `: ${[...files].sort().join(', ')}` : '';
			log(`   ${String(count).padStart(5)}  ${reason}${where}`);
		}
		const serversUnset = !process.env.MEMORY_TEST_REDIS_URL || !process.env.MEMORY_TEST_POSTGRES_URL;
		log(serversUnset ? ' `npm run test:all` runs the Redis and PostgreSQL suites too (README.md, "Running the tests").\n' : '');
	}
}
