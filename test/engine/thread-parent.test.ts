import { describe, expect, it } from 'vitest';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, CHANNEL, GUILD, MAYA, OTHER_CHANNEL, THIRD_CHANNEL, turn } from '../support/turns';

/** A thread of a private channel stays private, whatever a later turn passes as its parent. */
describe.each(backends)('a private thread’s parent, on $name', (backend) => {
	const clock = new TestClock();
	const under = freshEngineEachTest(backend, clock);
	/** THIRD_CHANNEL is a thread of the private OTHER_CHANNEL. */
	const THREAD = THIRD_CHANNEL;

	it('WHEN a later turn in the thread omits its parent THEN the thread still never surfaces outside the private channel', async () => {
		await under.engine.setServerSettings(GUILD, { privateChannelIds: [OTHER_CHANNEL] });
		await under.engine.recordTurn(
			turn({ channelId: THREAD, parentChannelId: OTHER_CHANNEL, text: 'PRIVATE-PLAN one', timestamp: clock.current })
		);
		clock.advance(60_000);
		await under.engine.recordTurn(turn({ channelId: THREAD, text: 'PRIVATE-PLAN two', timestamp: clock.current }));
		clock.advance(60_000);
		await under.engine.recordTurn(turn({ channelId: CHANNEL, text: 'public chatter', timestamp: clock.current }));
		const outside = await under.engine.buildContext(ask({ userId: MAYA.id, channelId: CHANNEL, query: 'plan' }));
		expect(outside.text).toContain('public chatter');
		expect(outside.text).not.toContain('PRIVATE-PLAN');
		const inside = await under.engine.buildContext(ask({ userId: MAYA.id, channelId: OTHER_CHANNEL, query: 'plan' }));
		expect(inside.text).toContain('PRIVATE-PLAN two');
	});
});
