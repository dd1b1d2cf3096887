import { afterEach, describe, expect, it } from 'vitest';
import { MemoryEngine, PrivacyLevel } from '../../src';
import { backends, TestClock } from '../support/backends';
import { freshEngineEachTest } from '../support/engine';
import { ask, MAYA, said, snowflake, THEO, turn } from '../support/turns';

/**
 * Two processes on one store, as two shard processes are: one erases a member while the other, whose settings cache
 * still holds her settings from before, captures a turn whose history carries her old words. The erasure must hold.
 */
describe.each(backends)('an erasure made by another process, on $name', (backend) => {
	const clock = new TestClock();
	const capturing = freshEngineEachTest(backend, clock);
	let erasing: MemoryEngine | undefined;

	afterEach(async () => {
		await erasing?.close();
		erasing = undefined;
	});

	/** A second engine on the same store: the other process. */
	async function otherProcess(): Promise<MemoryEngine> {
		erasing = await MemoryEngine.open({
			env: {},
			now: clock.now,
			config: { storeUrl: capturing.storeUrl, storeNamespace: capturing.namespace, sweepIntervalMinutes: 0 }
		});
		return erasing;
	}

	/** Maya says something through the capturing process, which then holds her settings in its cache. */
	async function mayaSpeaks(text: string) {
		const message = said(MAYA, text, clock.current, snowflake());
		await capturing.engine.recordTurn(turn({ history: [message], timestamp: clock.current }));
		clock.advance(60_000);
		return message;
	}

	/** Theo's turn through the capturing process, its history still carrying Maya's old message, as Discord's would. */
	async function theoRepliesAfter(old: ReturnType<typeof said>, extra: ReturnType<typeof said>[] = []) {
		clock.advance(60_000);
		const history = [old, ...extra, said(THEO, 'theo answers maya', clock.current, snowflake())];
		await capturing.engine.recordTurn(turn({ who: THEO, history, reply: 'noted, Theo', timestamp: clock.current }));
	}

	it('WHEN she erases everything in the other process THEN no row keeps her old words, though this process missed the barrier', async () => {
		const old = await mayaSpeaks('ERASED-ELSEWHERE my address is 12 Rua Nova');
		await (await otherProcess()).clearAll(MAYA.id);
		await theoRepliesAfter(old);
		expect(await capturing.inspect.keysHolding('ERASED-ELSEWHERE')).toEqual([]);
		const context = await capturing.engine.buildContext(ask({ userId: THEO.id, query: 'address Rua Nova' }));
		expect(context.text).not.toContain('ERASED-ELSEWHERE');
		expect(context.text).toContain('theo answers maya');
	});

	it('WHEN she chooses FULL in the other process THEN nothing of hers stays, old or just taken in', async () => {
		const old = await mayaSpeaks('FULL-ELSEWHERE my phone is 555-0100');
		await (await otherProcess()).setUserSettings(MAYA.id, { privacyLevel: PrivacyLevel.FULL });
		await theoRepliesAfter(old, [said(MAYA, 'FULL-ELSEWHERE-NEW one more thing', clock.current - 1000, snowflake())]);
		expect(await capturing.inspect.keysHolding('FULL-ELSEWHERE')).toEqual([]);
		expect((await capturing.engine.buildContext(ask({ userId: THEO.id, query: 'phone' }))).text).not.toContain('FULL-ELSEWHERE');
	});

	it('WHEN she clears her short-term memory in the other process THEN no short-term entry holds her old words (the archive does)', async () => {
		const old = await mayaSpeaks('CLEARED-ELSEWHERE the cake is a lie');
		await (await otherProcess()).clearShortTerm(MAYA.id);
		await theoRepliesAfter(old);
		const holding = await capturing.inspect.keysHolding('CLEARED-ELSEWHERE');
		expect(holding.filter((key) => !key.startsWith('archive:'))).toEqual([]);
		expect(holding.length).toBeGreaterThan(0);
		const recent = (await capturing.engine.buildContext(ask({ userId: THEO.id, query: '' }))).blocks.find((block) => block.tier === 'recent');
		expect(recent?.text).not.toContain('CLEARED-ELSEWHERE');
		expect(recent?.text).toContain('theo answers maya');
	});

	it('WHEN she is quoted here after an erasure made there THEN her next erasure finds those words (listed again)', async () => {
		await mayaSpeaks('BEFORE-ERASURE first words');
		await (await otherProcess()).clearAll(MAYA.id);
		// Past the settings cache: this process now knows the barrier, but still remembers having listed her in this channel.
		await new Promise((resolve) => setTimeout(resolve, 5_200));
		clock.advance(60_000);
		const after = said(MAYA, 'AFTER-ERASURE new words', clock.current, snowflake());
		await theoRepliesAfter(after);
		const recent = (await capturing.engine.buildContext(ask({ userId: THEO.id, query: '' }))).blocks.find((block) => block.tier === 'recent');
		expect(recent?.text).toContain('AFTER-ERASURE');
		await erasing!.clearAll(MAYA.id);
		expect(await capturing.inspect.keysHolding('AFTER-ERASURE')).toEqual([]);
		expect(await capturing.inspect.keysHolding('BEFORE-ERASURE')).toEqual([]);
	});

	it('WHEN nothing was erased elsewhere THEN the turn keeps everyone’s words (the re-read forgets nobody by mistake)', async () => {
		const old = await mayaSpeaks('KEPT-WORDS we meet at noon');
		await otherProcess();
		await theoRepliesAfter(old);
		const recent = (await capturing.engine.buildContext(ask({ userId: THEO.id, query: '' }))).blocks.find((block) => block.tier === 'recent');
		expect(recent?.text).toContain('KEPT-WORDS');
	});
});
