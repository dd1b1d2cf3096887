import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { container, LogLevel, type SapphireClient } from '@sapphire/framework';
import { Events } from 'discord.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_WORLD, GENERAL, GUILD, MAYA, SOL_BOT } from '../../examples/demo/world';
import { createPersonaBot } from '../../examples/persona-bot/bot';
import { openAiCompatible } from '../../examples/persona-bot/chat';
import { SOL } from '../../examples/persona-bot/persona';
import { MemoryEvents } from '../../src';
import { FakeDiscord } from '../../tools/fake-discord';
import { ChatEndpoint, type ChatRequestSeen } from '../support/chat-endpoint';
import { nextTurnRecorded } from '../support/memory-bot';

const ROOT = resolve(__dirname, '../..');

/** A chat completion that asks for one tool call. */
function toolCallAnswer(name: string, args: object): string {
	const call = { id: 'call_1', type: 'function', function: { name, arguments: JSON.stringify(args) } };
	return JSON.stringify({
		id: 'chatcmpl-test',
		object: 'chat.completion',
		model: 'test-model',
		choices: [{ index: 0, message: { role: 'assistant', content: null, tool_calls: [call] }, finish_reason: 'tool_calls' }]
	});
}

interface SeenMessage {
	role: string;
	content: string | null;
	tool_call_id?: string;
}
const messagesOf = (request: ChatRequestSeen) => request.body.messages as SeenMessage[];

describe('the example bot with LLM_BASE_URL: replies from an OpenAI-compatible endpoint, with the memory context', () => {
	let fake: FakeDiscord;
	let endpoint: ChatEndpoint;
	let client: SapphireClient;
	let dir: string;
	const failures: unknown[] = [];

	beforeAll(async () => {
		dir = mkdtempSync(join(tmpdir(), 'memory-example-'));
		endpoint = await ChatEndpoint.start();
		fake = await FakeDiscord.start(DEMO_WORLD);
		({ client } = createPersonaBot({
			model: openAiCompatible({ baseUrl: endpoint.baseUrl, apiKey: 'test-key', model: 'test-model' }),
			restApi: fake.restUrl,
			logLevel: LogLevel.None,
			observer: { failed: (_message, error) => failures.push(error) },
			memory: { storeUrl: `sqlite://${join(dir, 'memory.sqlite')}` }
		}));
		const ready = once(client, Events.ClientReady);
		await client.login('fake-token');
		await ready;
	});

	afterAll(async () => {
		await client?.destroy();
		await fake?.close();
		await endpoint?.stop();
		rmSync(dir, { recursive: true, force: true });
	});

	/** Maya writes in #general; resolves once the bot's turn was recorded. */
	async function mayaSays(content: string) {
		const recorded = nextTurnRecorded(client, (turn) => turn.history.some((message) => message.text === content));
		const sent = fake.sendMessage({ channelId: GENERAL, author: MAYA.id, content });
		const { result } = await recorded;
		return { sent, result, reply: fake.messagesIn(GENERAL).at(-1)! };
	}

	it(
		['GIVEN a first message THEN the endpoint is called as OpenAI', 'expects, with the memory tools, and its answer is sent as the reply'].join(
			' '
		),
		async () => {
			endpoint.script(() => ({ content: 'What a lovely name, Maya!' }));

			const { sent, result, reply } = await mayaSays('Sol, we adopted a beagle called Biscuit');

			const [request] = endpoint.requests;
			expect(request).toMatchObject({ path: '/v1/chat/completions', authorization: 'Bearer test-key', body: { model: 'test-model' } });
			const tools = (request!.body as { tools?: { function: { name: string } }[] }).tools ?? [];
			expect(tools.map((tool) => tool.function.name)).toEqual(['update_short_term_memory', 'remember']);
			expect(messagesOf(request!)[0]).toEqual({ role: 'system', content: SOL.prompt });
			expect(messagesOf(request!).at(-1)).toEqual({ role: 'user', content: 'Maya: Sol, we adopted a beagle called Biscuit' });
			expect(reply).toMatchObject({
				content: 'What a lovely name, Maya!',
				author: { id: SOL_BOT.id },
				message_reference: { message_id: sent.id }
			});
			expect(result.written).toBe(true);
		}
	);

	it(
		'GIVEN a second message THEN the system message carries the memory context, ' +
			'a tool call is handled by the plugin, and the final answer is sent',
		async () => {
			endpoint.requests.length = 0;
			endpoint.script(
				() => ({ body: toolCallAnswer('update_short_term_memory', { summary: 'Maya adopted a beagle named Biscuit.' }) }),
				() => ({ content: 'Biscuit!' })
			);

			const { reply } = await mayaSays('Sol, what is my dog called?');

			expect(endpoint.requests).toHaveLength(2);
			const [asked, afterTool] = endpoint.requests.map(messagesOf);
			expect(asked![0]!.content).toContain(`${SOL.prompt}\n\nWhat you remember:\n# Recent messages in this conversation (UTC)`);
			expect(asked![0]!.content).toMatch(/\nMaya: Sol, we adopted a beagle called Biscuit\nSol: What a lovely name, Maya!/);
			// The channel's history, then the message: the bot's own reply is the assistant's.
			expect(asked!.slice(1)).toEqual([
				{ role: 'user', content: 'Maya: Sol, we adopted a beagle called Biscuit' },
				{ role: 'assistant', content: 'What a lovely name, Maya!' },
				{ role: 'user', content: 'Maya: Sol, what is my dog called?' }
			]);
			const toolResult = afterTool!.find((message) => message.role === 'tool');
			expect(toolResult).toMatchObject({ tool_call_id: 'call_1' });
			expect(JSON.parse(toolResult!.content!)).toMatchObject({ ok: true, summary: 'Maya adopted a beagle named Biscuit.' });
			expect(reply).toMatchObject({ content: 'Biscuit!', author: { id: SOL_BOT.id } });

			const context = await container.memory.buildContext({
				userId: MAYA.id,
				serverId: GUILD,
				channelId: GENERAL,
				personaId: SOL.id,
				query: 'dog'
			});
			expect(context.text).toContain('Maya adopted a beagle named Biscuit.');
		}
	);

	it('GIVEN the endpoint fails THEN nothing is sent, no turn is reported, and the bot keeps running', async () => {
		endpoint.script(() => ({ status: 500, body: '{"error":"overloaded"}' }));
		const before = fake.messagesIn(GENERAL).length;
		const turns: unknown[] = [];
		const onTurn = (turn: unknown) => turns.push(turn);
		client.on(MemoryEvents.TurnCompleted, onTurn);

		fake.sendMessage({ channelId: GENERAL, author: MAYA.id, content: 'Sol, are you there?' });

		await expect.poll(() => failures.length).toBe(1);
		client.off(MemoryEvents.TurnCompleted, onTurn);
		expect(String(failures[0])).toContain('answered 500');
		expect(fake.messagesIn(GENERAL)).toHaveLength(before + 1);
		expect(turns).toEqual([]);
	});
});

describe('npm run example without DISCORD_TOKEN', () => {
	it('THEN it exits 1 and says what to set', () => {
		const env: NodeJS.ProcessEnv = { ...process.env };
		delete env.DISCORD_TOKEN;
		const child = spawnSync(process.execPath, ['--import', 'tsx', 'examples/persona-bot/main.ts'], {
			cwd: ROOT,
			encoding: 'utf8',
			timeout: 30_000,
			env
		});

		expect(child.status).toBe(1);
		expect(child.stderr).toContain('DISCORD_TOKEN');
		expect(child.stderr).toContain('Message Content intent');
		expect(child.stderr).toContain('npm run demo');
	});
});
