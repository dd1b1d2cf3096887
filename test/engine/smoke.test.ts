import { describe, expect, it } from 'vitest';
import { backends, openEngine, TestClock } from '../support/backends';

describe.each(backends)('smoke $name', (backend) => {
	it.skipIf(backend.skipReason)('records and builds', async () => {
		const clock = new TestClock();
		const { engine, dispose } = await openEngine(backend, { now: clock.now });
		try {
			const r = await engine.recordTurn({
				userId: '1', userName: 'Maya', serverId: 'g1', channelId: 'c1',
				history: [{ role: 'user', authorId: '1', authorName: 'Maya', text: 'my dog is called Biscuit <:wave:123456789012>', messageId: '10', timestamp: clock.current }],
				responses: [{ text: 'Cute name!', personaId: 'sol', personaName: 'Sol', messageId: '11' }]
			});
			console.log(r);
			const ctx = await engine.buildContext({ userId: '1', serverId: 'g1', channelId: 'c1', personaId: 'sol', query: 'dog name' });
			console.log(ctx);
			expect(r.written).toBe(true);
		} finally {
			await dispose();
		}
	});
});
