import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import Keyv from 'keyv';
import { MemoryEngine, type MemoryTurn, type TurnMessage } from '../../src';
import { ARCHIVE_CHUNK_SIZE } from '../../src/engine/archive/Archive';
import { CRASH_STREAMS, crashTurnParts, HISTORY_TURNS, type StartedTurn } from '../support/crash-stream';
import {
	archivedIds,
	checkStore,
	decodeRows,
	liveScopeKey,
	type RawRows,
	readThroughEngine,
	SnapshotStore,
	sqliteRows
} from '../support/store-inspection';
import { CHANNEL, DM_CHANNEL, GUILD, MAYA, NOVA, OTHER_CHANNEL, said, snowflake, THEO, turn } from '../support/turns';

const root = join(__dirname, '..', '..');
const writer = join(__dirname, '..', 'support', 'crash-writer.mts');

/** What one child process did before it was killed. */
interface Run {
	/** Turns whose recordTurn had started, with their time. */
	started: StartedTurn[];
	/** `stream:n` of the turns whose recordTurn had resolved. */
	confirmed: Set<string>;
	signal: NodeJS.Signals | null;
	stderr: string;
}

/**
 * Runs the writer on `storeUrl` and kills it with SIGKILL `jitterMs` after it confirmed `turns` turns:
 * a moment in the middle of the stream however fast the machine is, and never the same one.
 */
function runAndKill(storeUrl: string, round: number, resume: StartedTurn[][], turns: number, jitterMs: number): Promise<Run> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, ['--import', 'tsx', writer, storeUrl, String(round), JSON.stringify(resume)], {
			cwd: root,
			stdio: ['ignore', 'pipe', 'pipe']
		});
		const run: Run = { started: [], confirmed: new Set(), signal: null, stderr: '' };
		let killing = false;
		let buffered = '';
		child.stdout.setEncoding('utf8').on('data', (data: string) => {
			buffered += data;
			const lines = buffered.split('\n');
			buffered = lines.pop()!;
			for (const line of lines) {
				const [what, stream, n, at] = line.split(' ');
				if (what === 'start') run.started.push({ round, stream: Number(stream), n: Number(n), at: Number(at) });
				else if (what === 'done') run.confirmed.add(`${stream}:${n}`);
				if (!killing && run.confirmed.size >= turns) {
					killing = true;
					setTimeout(() => child.kill('SIGKILL'), jitterMs);
				}
			}
		});
		child.stderr.setEncoding('utf8').on('data', (data: string) => void (run.stderr += data));
		child.on('error', reject);
		child.on('close', (_code, signal) => resolve({ ...run, signal }));
	});
}

describe('GIVEN a process killed with SIGKILL in the middle of a stream of turns on SQLite', () => {
	const dir = mkdtempSync(join(tmpdir(), 'memory-crash-'));
	const storeUrl = `sqlite://${join(dir, 'memory.sqlite')}`;
	afterAll(() => rmSync(dir, { recursive: true, force: true }));

	it('THEN after each kill the store opens, every turn whose recordTurn resolved is there, and nothing half-written breaks reading', async () => {
		const rounds = 8;
		const figures: string[] = [];
		/** Every confirmed turn so far. */
		const promised: StartedTurn[] = [];
		let resume: StartedTurn[][] = CRASH_STREAMS.map(() => []);
		for (let round = 1; round <= rounds; round++) {
			// A different moment each round, from the first turns to over a hundred in.
			const turns = 1 + Math.floor(Math.random() * 120);
			const jitterMs = Math.floor(Math.random() * 20);
			const run = await runAndKill(storeUrl, round, resume, turns, jitterMs);
			expect(run.signal, run.stderr).toBe('SIGKILL');
			expect(run.stderr).toBe('');
			const confirmed = run.started.filter((turn) => run.confirmed.has(`${turn.stream}:${turn.n}`));
			const inFlight = run.started.filter((turn) => !run.confirmed.has(`${turn.stream}:${turn.n}`));
			promised.push(...confirmed);

			// The store opens.
			const engine = await MemoryEngine.open({ env: {}, config: { storeUrl, sweepIntervalMinutes: 0 } });
			try {
				// Every key decodes, and nothing is half-written.
				const stored = decodeRows(sqliteRows(storeUrl));
				expect(checkStore(stored)).toEqual([]);

				// Every promised turn, of this round and the earlier ones, is archived, once.
				const archived = archivedIds(stored);
				const presence = (turn: StartedTurn) => {
					const parts = crashTurnParts(turn.round, turn.stream, turn.n);
					const expected = parts.scopes.flatMap(
						(scope, index) =>
							[
								[scope, parts.message.id],
								[scope, parts.replies[index]!.id]
							] as const
					);
					return expected.filter(([scope, id]) => archived.get(scope)?.get(id) === 1).length / expected.length;
				};
				const missing = promised.filter((turn) => presence(turn) < 1).map((turn) => `r${turn.round}-s${turn.stream}-n${turn.n}`);
				expect(missing).toEqual([]);

				// This round's promised turns are retrievable: each member's export holds their words, and the relevant or
				// recent tier brings back each of the last 20 (the nearest the kill; the archive check above covers all).
				const exports = new Map<string, Set<string>>();
				for (const [index, turn] of confirmed.entries()) {
					const parts = crashTurnParts(turn.round, turn.stream, turn.n);
					for (const personaId of index >= confirmed.length - 20 ? parts.spec.personas : []) {
						const context = await engine.buildContext({
							userId: parts.user.id,
							serverId: parts.spec.serverId,
							channelId: parts.spec.channelId,
							personaId,
							query: `what about ${parts.word}`
						});
						expect(context.text, `r${round}-s${turn.stream}-n${turn.n} (${personaId})`).toContain(parts.word);
					}
					if (!exports.has(parts.user.id))
						exports.set(parts.user.id, new Set((await engine.exportUser(parts.user.id)).archive.map((message) => message.id)));
					expect(exports.get(parts.user.id)!.has(parts.message.id), parts.message.id).toBe(true);
				}

				// The turns the restarted bot's first histories repeated (those in flight at the previous kill among them) are archived now.
				const repeated = resume.flat().filter((turn) => run.confirmed.has(`${turn.stream}:0`));
				expect(repeated.filter((turn) => presence(turn) < 1)).toEqual([]);

				// Contexts, status and export read everything; a new turn records and is found.
				expect(await readThroughEngine(engine, stored)).toEqual([]);
				const probe = `zqprobe${String.fromCharCode(96 + round)}x`;
				await engine.recordTurn({
					userId: NOVA.id,
					userName: NOVA.name,
					serverId: GUILD,
					channelId: CHANNEL,
					history: [said(NOVA, `after the crash ${probe}`, Date.now())],
					responses: [{ text: 'back again', personaId: 'sol', messageId: snowflake() }]
				});
				expect(
					(await engine.buildContext({ userId: NOVA.id, serverId: GUILD, channelId: CHANNEL, personaId: 'sol', query: probe })).text
				).toContain(probe);

				const partial = inFlight.filter((turn) => presence(turn) > 0 && presence(turn) < 1).length;
				const whole = inFlight.filter((turn) => presence(turn) === 1).length;
				figures.push(
					`kill ${round} (${jitterMs} ms after confirmation ${turns}): ${confirmed.length} ` +
						`turns confirmed, all ${promised.length} confirmed so far found; ` +
						`${inFlight.length} in flight: ${whole} stored whole, ${partial} in part, ${inFlight.length - whole - partial} not at all`
				);
			} finally {
				await engine.close();
			}
			// The next bot process fetches each channel's last messages again, those in flight included.
			resume = CRASH_STREAMS.map((_, stream) =>
				[...resume[stream]!, ...run.started.filter((turn) => turn.stream === stream)].slice(-HISTORY_TURNS)
			);
		}
		console.log(`[crash] ${rounds} kills, ${promised.length} confirmed turns, all found:\n${figures.join('\n')}`);
	}, 60_000);
});

/** Opens an engine on a Map store holding `rows` (the keyv rows, namespace included). */
async function openOn(rows: RawRows) {
	const store = new SnapshotStore(new Map(rows));
	const engine = await MemoryEngine.open({
		keyv: new Keyv({ store: store as never, namespace: 'memory' }),
		env: {},
		config: { sweepIntervalMinutes: 0 }
	});
	return { store, engine };
}

/** The live scope of each persona answering `cut`, with the ids of the messages it must archive. */
function expectedArchive(cut: MemoryTurn): [string, string[]][] {
	return cut.responses.map((response) => [
		liveScopeKey({ userId: cut.userId, serverId: cut.serverId, channelId: cut.channelId, personaId: response.personaId }),
		[...cut.history.map((message) => message.messageId!), response.messageId!]
	]);
}

/** The next turn of the same conversation, its history repeating `cut` as a bot's fetch does. */
function nextTurn(cut: MemoryTurn): MemoryTurn {
	const at = Date.now() + 1000;
	const replies = cut.responses.map(
		(response): TurnMessage => ({
			role: 'persona',
			authorId: response.personaId!,
			text: response.text,
			messageId: response.messageId,
			timestamp: at - 500
		})
	);
	return {
		...cut,
		history: [...cut.history, ...replies, said({ id: cut.userId, name: cut.userName ?? 'member' }, 'and one more thing', at)],
		responses: cut.responses.map((response) => ({ ...response, text: 'noted', messageId: snowflake() })),
		timestamp: at
	};
}

describe('GIVEN a turn cut short after each of its writes: every state a SIGKILL can leave', () => {
	const now = () => Date.now();
	const scenarios: { name: string; prime: () => MemoryTurn[]; cut: () => MemoryTurn }[] = [
		{
			name: 'the first turn of a new member in a new guild channel',
			prime: () => [turn({ text: 'an older conversation elsewhere', timestamp: now() - 60_000 })],
			cut: () => turn({ who: NOVA, channelId: OTHER_CHANNEL, text: 'nova arrives with a zqcutx', timestamp: now() })
		},
		{
			name: 'a turn that fills its archive chunk and starts the next',
			prime: () => {
				// Two new messages a turn, then one (a repeated message and a new reply): the chunk holds 63.
				const turns = Array.from({ length: (ARCHIVE_CHUNK_SIZE - 2) / 2 }, (_, index) =>
					turn({ who: index % 2 ? THEO : MAYA, text: `filler ${index}`, timestamp: now() - 100_000 + index * 100 })
				);
				const last = turns.at(-1)!;
				return [
					...turns,
					{ ...last, responses: [{ text: 'one more reply', personaId: 'sol', messageId: snowflake() }], timestamp: now() - 50_000 }
				];
			},
			cut: () => turn({ who: THEO, text: 'theo overflows the chunk with a zqcutx', timestamp: now() })
		},
		{
			name: 'a DM turn two personas answer',
			prime: () => [turn({ serverId: null, channelId: DM_CHANNEL, text: 'an earlier DM', timestamp: now() - 60_000 })],
			cut: () => ({
				...turn({ serverId: null, channelId: DM_CHANNEL, text: 'a DM about a zqcutx', timestamp: now() }),
				responses: ['sol', 'luna'].map((personaId) => ({
					text: `${personaId} on the zqcutx`,
					personaId,
					personaName: personaId,
					messageId: snowflake()
				}))
			})
		}
	];

	it.each(scenarios)(
		'WHEN it is $name THEN each state opens and reads, nothing is half-written, and the next turn stores it whole, once',
		async ({ name, prime, cut: cutTurn }) => {
			const primed = await openOn(new Map());
			for (const primer of prime()) await primed.engine.recordTurn(primer);
			await primed.engine.close();

			const cut = cutTurn();
			const writing = await openOn(primed.store.data);
			await writing.engine.recordTurn(cut);
			// Closing writes what was held in memory: a kill may land there too.
			await writing.engine.close();
			const states = [primed.store.data, ...writing.store.states];

			const problems: string[] = [];
			for (const [index, state] of states.entries()) {
				const at = `after write ${index} of ${states.length - 1}`;
				const { store, engine } = await openOn(state);
				const stored = decodeRows(SnapshotStore.rows(state));
				problems.push(...checkStore(stored).map((problem) => `${at}: ${problem}`));
				problems.push(...(await readThroughEngine(engine, stored)).map((problem) => `${at}: ${problem}`));
				await engine.recordTurn(nextTurn(cut));
				await engine.close();
				const repaired = decodeRows(SnapshotStore.rows(store.data));
				problems.push(...checkStore(repaired).map((problem) => `${at}, then the next turn: ${problem}`));
				const archived = archivedIds(repaired);
				for (const [scope, ids] of expectedArchive(cut)) {
					for (const id of ids)
						if (archived.get(scope)?.get(id) !== 1)
							problems.push(`${at}, then the next turn: ${id} archived ${archived.get(scope)?.get(id) ?? 0} times in ${scope}`);
				}
			}
			expect(problems).toEqual([]);
			expect(states.length).toBeGreaterThan(3);
			console.log(
				`[crash points] ${name}: cut after each of its ${states.length - 1} writes ` +
					`(closing included), every state checked and repaired by the next turn`
			);
		}
	);
});
