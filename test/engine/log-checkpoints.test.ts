/**
 * The SQLite store's write-ahead log is copied into the database between replies (src/engine/store/LogCheckpoints.ts),
 * not by the commit that fills it. That no reply waits for it is measured in the bench (section 1e); here, that it runs.
 */
import { statSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { backends, openEngine, TestClock } from '../support/backends';
import { noise } from '../support/noise';
import { MAYA, said, turn } from '../support/turns';

const sqlite = backends.find((backend) => backend.name === 'sqlite')!;

/**
 * Turns of ten messages of some 2,000 characters, recorded back to back (no turn of the event loop passes without a call):
 * random text, which the store's compression takes to three quarters, where repeated words would shrink to nothing.
 */
async function recordBusily(engine: Awaited<ReturnType<typeof openEngine>>['engine'], clock: TestClock, turns: number) {
	for (let at = 0; at < turns; at++) {
		clock.advance(60_000);
		const history = Array.from({ length: 10 }, (_, offset) =>
			said(MAYA, `turn ${at} message ${offset} ${noise(1_500)}`, clock.current - 100 + offset)
		);
		await engine.recordTurn(turn({ history, reply: 'Noted.', timestamp: clock.current }));
	}
}

describe('GIVEN an SQLite store that replies keep busy', () => {
	it('WHEN some 2 MB of turns are recorded back to back THEN the log is copied into the database without a full log', async () => {
		const clock = new TestClock();
		const { engine, storeUrl, dispose } = await openEngine(sqlite, { now: clock.now, config: { sweepIntervalMinutes: 0 } });
		const file = storeUrl.slice('sqlite://'.length);
		try {
			await recordBusily(engine, clock, 3);
			await sleep(200);
			const before = statSync(file).size;
			await recordBusily(engine, clock, 100);
			// A moment with no reply: what is left of the log is copied too.
			await sleep(200);
			const after = statSync(file).size;
			// SQLite alone copies the log once it holds 4 MB (1,000 pages), and then within the commit that filled it; these
			// 2 MB reached the database file without that.
			expect(after - before).toBeGreaterThan(1_000_000);
		} finally {
			await dispose();
		}
	}, 60_000);
});
