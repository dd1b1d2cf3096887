import type { ConversationFixture } from '../recall';
import { type Cast, FACTS, type Line } from './facts';
import { Random } from './random';
import { chatter, closing, opening } from './smallTalk';

const DAY = 86_400_000;
const USERS = ['Priya', 'Marcus', 'Elena', 'Jonah', 'Aisha', 'Tomás', 'Hana', 'Felix', 'Nadia', 'Oskar', 'Leila', 'Ravi', 'Greta', 'Sam'];
const PERSONAS = ['Wren', 'Juniper', 'Atlas', 'Echo', 'Sol'];
const PARTNERS = ['Dev', 'Mira', 'Chris', 'Joanna', 'Kai', 'Luis'];
const PETS = ['Biscuit', 'Pickle', 'Mochi', 'Otis', 'Juno', 'Pepper'];
const SIBLINGS = ['Anya', 'Rosa', 'Ines', 'Clara', 'Yara'];
const FRIENDS = ['Tash', 'Beth', 'Owen', 'Rafi', 'Lotte', 'Sunny'];

/**
 * The generated evaluation set: `count` conversations between one member and a persona, each of 15 to 22
 * sessions days or weeks apart (four to ten months in all) and 300 to 700 messages, mostly small talk,
 * with facts told in passing, some updated sessions later, and questions that paraphrase them. The same
 * seed gives the same set.
 */
export function generateConversations(count = 12, seed = 1707): ConversationFixture[] {
	return Array.from({ length: count }, (_, index) => generateConversation(new Random(seed * 1000 + index), index + 1));
}

function generateConversation(random: Random, number: number): ConversationFixture {
	const cast: Cast = {
		user: USERS[(number - 1) % USERS.length]!,
		persona: random.pick(PERSONAS),
		partner: random.pick(PARTNERS),
		pet: random.pick(PETS),
		petKind: random.pick(['dog', 'cat']),
		sibling: random.pick(SIBLINGS),
		siblingRole: 'sister',
		friend: random.pick(FRIENDS)
	};
	const userId = String(480_000_000_000_000_000n + BigInt(random.int(1, 999_999_999)) * 1000n + BigInt(number));
	const sessionCount = random.int(15, 22);
	const facts = random.sample(FACTS, random.int(11, 15)).map((fact) => fact(random, cast));
	const topics = facts.flatMap((fact) => fact.mentions);

	// Each fact's episodes go to sessions in order, never the last one (the recent tier would hold it).
	const episodesBySession: Line[][][] = Array.from({ length: sessionCount }, () => []);
	const keyed = new Map<string, Line>();
	facts.forEach((fact, factIndex) => {
		const sessions = random
			.sample(
				Array.from({ length: sessionCount - 1 }, (_, session) => session),
				fact.episodes.length
			)
			.sort((a, b) => a - b);
		fact.episodes.forEach((episode, episodeIndex) => {
			const lines = episode.map((line) => ({ ...line, key: line.key && `${factIndex}:${line.key}` }));
			for (const line of lines) if (line.key) keyed.set(line.key, line);
			episodesBySession[sessions[episodeIndex]!]!.push(lines);
		});
	});

	const targetMessages = random.int(330, 660);
	let start = Date.UTC(2025, 0, 6) + random.int(0, 200) * DAY;
	const ids = new Map<Line, string>();
	const sessions: ConversationFixture['sessions'] = [];
	for (let session = 0; session < sessionCount; session++) {
		const target = Math.round(targetMessages / sessionCount) + random.int(-6, 6);
		const middle: Line[][] = [...episodesBySession[session]!];
		let size = middle.flat().length + 4;
		while (size < target) {
			const lines = chatter(random, cast, topics);
			middle.push(lines);
			size += lines.length;
		}
		const lines = [...opening(random, cast), ...random.shuffle(middle).flat(), ...closing(random, cast)];
		const sessionId = session + 1;
		const at = start + random.int(17 * 60, 22 * 60) * 60_000;
		sessions.push({
			id: sessionId,
			start: new Date(at).toISOString(),
			turns: lines.map((line, turn) => {
				const id = `C${number}:D${sessionId}:${turn + 1}`;
				ids.set(line, id);
				return { id, speaker: line.who === 'user' ? userId : 'persona-sol', text: line.text };
			})
		});
		start += random.int(3, 16) * DAY;
	}

	return {
		speakers: [
			{ id: userId, name: cast.user, role: 'user' },
			{ id: 'persona-sol', name: cast.persona, role: 'persona' }
		],
		sessions,
		questions: facts
			.flatMap((fact, factIndex) =>
				fact.questions.map((question) => ({
					question: question.question,
					kind: question.kind,
					answerTurnIds: question.keys.map((key) => ids.get(keyed.get(`${factIndex}:${key}`)!)!)
				}))
			)
			.map((question, index) => ({ id: `C${number}:Q${index + 1}`, ...question }))
	};
}
