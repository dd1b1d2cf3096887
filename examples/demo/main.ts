import { once } from 'node:events';
import { rmSync, statSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { LogLevel } from '@sapphire/framework';
import { Events } from 'discord.js';
import { MemoryEvents } from '../../src';
import { FakeDiscord } from '../../tools/fake-discord';
import { createPersonaBot } from '../persona-bot/bot';
import { standInModel } from '../persona-bot/standIn';
import { DemoDriver } from './driver';
import { Narrator } from './narrator';
import { playScript } from './script';
import { DEMO_WORLD, NAMES } from './world';

/**
 * `npm run demo`: the example persona bot, with the plugin, on a fake Discord of 127.0.0.1, playing a
 * scripted conversation. No token, no network, no LLM: replies come from a deterministic stand-in.
 */
async function main(): Promise<void> {
	const started = performance.now();
	// Relative to where npm runs scripts: the package's root.
	const file = resolve('data', 'demo-memory.sqlite');
	for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${file}${suffix}`, { force: true });

	const fake = await FakeDiscord.start(DEMO_WORLD);
	const narrator = new Narrator(NAMES);
	const { client } = createPersonaBot({
		model: standInModel,
		restApi: fake.restUrl,
		observer: narrator.observer,
		logLevel: LogLevel.Warn,
		// A nudge every 3 turns, so that the demo shows the summary tool; the rest is the default.
		memory: { storeUrl: `sqlite://${file}`, config: { refreshCadence: 3 } }
	});
	client.on(MemoryEvents.Error, (error, context) => narrator.raw(`memoryError (${context.phase}): ${String(error)}`));
	try {
		const ready = once(client, Events.ClientReady);
		await client.login('fake-token');
		await ready;
		await fake.waitForCommand('session');
		narrator.title([
			'sapphire-plugin-memory demo',
			`fake Discord on ${fake.restUrl.replace(/\/api$/, '')}; the example bot (examples/persona-bot) logged in with the plugin`,
			`memory: SQLite file ${relative(process.cwd(), file)} (recreated at each run); persona Sol; replies from a deterministic stand-in LLM`,
			// The demo deletes its store at each run: it never touches the one a bot of yours uses.
			...(process.env.MEMORY_STORE_URL
				? [`MEMORY_STORE_URL is set, and left alone: the demo uses only its own file, ${relative(process.cwd(), file)}`]
				: []),
			'members Maya, Theo and Jun on Demo Server (#general, #trips and its thread #porto-plans) and in a DM'
		]);
		await playScript(new DemoDriver(fake, client, narrator, NAMES), narrator);
	} finally {
		await client.destroy();
		await fake.close();
	}

	const { tally } = narrator;
	const skipped = [...tally.skipped].map(([reason, count]) => `${count} ${reason}`).join(', ') || 'none';
	narrator.blank();
	narrator.raw(`Done in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
	narrator.raw(`  turns captured: ${tally.captured}; skipped: ${skipped}`);
	narrator.raw(`  contexts injected: ${tally.contexts} (${tally.contextTokens} tokens in all); memory tool calls: ${tally.toolCalls}`);
	narrator.raw(
		`  memory file: ${relative(process.cwd(), file)} (${Math.round(statSync(file).size / 1024)} KB; table keyv, one JSON value per key)`
	);
	narrator.raw('  your own bot on Discord: DISCORD_TOKEN=… npm run example');
}

main().then(
	() => process.exit(0),
	(error: unknown) => {
		console.error('demo failed:', error);
		process.exit(1);
	}
);
