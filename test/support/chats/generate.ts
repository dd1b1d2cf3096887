import type { ConversationFixture } from '../recall';
import { Random } from '../conversations/random';
import { banterLine, closer, opener, reaction } from './banter';
import { type ChatCast, drawCast, type Person } from './cast';
import { type Said, STORIES } from './stories';

const DAY = 86_400_000;
const MINUTE = 60_000;
/** Days a chat spans. */
const DAYS = 21;
const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];

type Speaker = 'member' | 'friend';

const INTRODUCTIONS = ['btw its {name}, new number', 'its {name} lol', 'call me {name}, everyone does', 'hiya, {name} here'];

interface Line {
	who: Speaker;
	text: string;
	/** `story:key` for a line some question names as its evidence. */
	key?: string;
}

/**
 * The chat-like evaluation set: `count` chats between two friends over three weeks, some 1,000 messages each, written
 * as people text: bursts of three to ten lines by one speaker (most under 40 characters: "omg", "wait what"), news
 * told across days, the same person called several names (a nickname, another spelling, the name a coworker asks to be
 * called; the member's display name is now and then a handle), photos as their captions, and questions that mostly
 * need two lines from different days, or ask when something happened. The first speaker is the member who asks, the
 * second is recorded as the persona. The same seed gives the same set.
 */
export function generateChats(count = 10, seed = 2113): ConversationFixture[] {
	return Array.from({ length: count }, (_, index) => generateChat(new Random(seed * 1000 + index), index + 1));
}

function generateChat(random: Random, number: number): ConversationFixture {
	const cast = drawCast(random, number);
	const memberId = String(460_000_000_000_000_000n + BigInt(random.int(1, 999_999_999)) * 1000n + BigInt(number));
	const stories = random.sample(STORIES, random.int(10, 13)).map((story) => {
		const memberTells = random.chance(0.6);
		return { plan: story(random, cast, memberTells ? cast.member : cast.friend), memberTells };
	});
	const topics = stories.flatMap(({ plan }) => plan.mentions);
	const chatter = stories.flatMap(({ plan }) => plan.chatter);

	// Each story's episodes go to different days in order, anywhere in the three weeks.
	const episodesByDay: Line[][][] = Array.from({ length: DAYS }, () => []);
	const storyDays = stories.map(({ plan, memberTells }, storyIndex) => {
		const days = random
			.sample(
				Array.from({ length: DAYS }, (_, day) => day),
				plan.episodes.length
			)
			.sort((a, b) => a - b);
		plan.episodes.forEach((episode, episodeIndex) => {
			episodesByDay[days[episodeIndex]!]!.push(episode.map((said) => lineOf(said, memberTells, storyIndex)));
		});
		return days;
	});

	const firstDay = Date.UTC(2025, random.int(0, 10), random.int(1, 20));
	const sessions: ConversationFixture['sessions'] = [];
	const ids = new Map<string, string>();
	const times = new Map<string, number>();
	for (let day = 0; day < DAYS; day++) {
		const lines = dayOfChat(random, cast, topics, chatter, episodesByDay[day]!);
		// Now and then the member says the name they go by, as people do with a new number or a new friend.
		if (day === 0 && random.chance(0.4))
			lines.splice(1, 0, { who: 'member', text: random.pick(INTRODUCTIONS).replace('{name}', random.pick(cast.member.aliases)) });
		let at = firstDay + day * DAY + random.int(7 * 60, 10 * 60) * MINUTE;
		const sessionGaps = new Set(random.sample(Array.from({ length: lines.length }, (_, index) => index).slice(5, -5), random.int(1, 3)));
		const turns = lines.map((line, index) => {
			const id = `K${number}:D${day + 1}:${index + 1}`;
			if (index > 0) {
				const sameSpeaker = lines[index - 1]!.who === line.who;
				at += sessionGaps.has(index) ? random.int(90, 240) * MINUTE : sameSpeaker ? random.int(4, 40) * 1000 : random.int(20, 360) * 1000;
			}
			if (line.key) {
				ids.set(line.key, id);
				times.set(line.key, at);
			}
			return { id, speaker: line.who === 'member' ? memberId : 'persona-sol', text: line.text, at: new Date(at).toISOString() };
		});
		sessions.push({ id: day + 1, start: turns[0]!.at, turns });
	}

	const askedAt = Date.parse(sessions.at(-1)!.turns.at(-1)!.at!) + 3_600_000;
	const questions = stories.flatMap(({ plan }, storyIndex) =>
		plan.questions.map((question) => ({
			question: question.question.replace(/\{day:(\d)\}/g, (_, episode: string) =>
				spokenDate(random, firstDay + storyDays[storyIndex]![Number(episode)]! * DAY, askedAt)
			),
			kind: question.kind,
			answerTurnIds: question.keys.map((key) => ids.get(`${storyIndex}:${key}`)!)
		}))
	);
	return {
		speakers: [
			{ id: memberId, name: cast.memberDisplayName, role: 'user' },
			{ id: 'persona-sol', name: cast.friendDisplayName, role: 'persona' }
		],
		sessions,
		questions: questions.map((question, index) => ({ id: `K${number}:Q${index + 1}`, ...question }))
	};
}

function lineOf(said: Said, memberTells: boolean, storyIndex: number): Line {
	const tellerSpeaks = said.who === 'teller';
	return {
		who: tellerSpeaks === memberTells ? 'member' : 'friend',
		text: said.text,
		...(said.key ? { key: `${storyIndex}:${said.key}` } : {})
	};
}

/** One day of chat, some 40 to 60 lines: an opener, the day's episodes among banter in bursts, a closer. */
function dayOfChat(random: Random, cast: ChatCast, topics: readonly string[], chatter: readonly string[], episodes: readonly Line[][]): Line[] {
	const first: Speaker = random.chance(0.5) ? 'member' : 'friend';
	const lines: Line[] = [{ who: first, text: opener(random) }];
	if (random.chance(0.6)) lines.push({ who: first, text: banterLine(random, cast, topics, chatter, addressee(cast, first)) });
	const target = random.int(38, 58);
	const pending = random.shuffle(episodes);
	while (lines.length < target || pending.length > 0) {
		const episode = lines.length > 6 && random.chance(0.35) ? pending.shift() : undefined;
		if (episode) {
			lines.push(...withBanterAround(random, cast, topics, episode));
			continue;
		}
		// A burst of one speaker, then the other's.
		const who: Speaker = lines.at(-1)!.who === 'member' ? 'friend' : 'member';
		for (let line = burstLength(random); line > 0; line--)
			lines.push({ who, text: banterLine(random, cast, topics, chatter, addressee(cast, who)) });
		if (random.chance(0.5)) lines.push({ who: who === 'member' ? 'friend' : 'member', text: reaction(random) });
	}
	const last = lines.at(-1)!.who;
	lines.push({ who: last, text: closer(random) }, { who: last === 'member' ? 'friend' : 'member', text: closer(random) });
	return lines;
}

/** An episode's lines, the teller's first burst now and then opened or closed by a line of banter. */
function withBanterAround(random: Random, cast: ChatCast, topics: readonly string[], episode: readonly Line[]): Line[] {
	const lines = [...episode];
	const teller = lines[0]!.who;
	if (random.chance(0.4)) lines.unshift({ who: teller, text: banterLine(random, cast, topics, [], addressee(cast, teller)) });
	if (random.chance(0.3)) {
		const end = lines.findIndex((line) => line.who !== teller);
		lines.splice(end < 0 ? lines.length : end, 0, { who: teller, text: banterLine(random, cast, topics, [], addressee(cast, teller)) });
	}
	return lines;
}

/** The one `who` talks to. */
function addressee(cast: ChatCast, who: Speaker): Person {
	return who === 'member' ? cast.friend : cast.member;
}

/** One to ten lines, most of them short bursts of two to four. */
function burstLength(random: Random): number {
	const roll = random.next();
	if (roll < 0.25) return 1;
	if (roll < 0.75) return random.int(2, 4);
	return random.int(5, 10);
}

/** A day as people write it in a question: "on March 9", "on the 9th", "on Sunday the 9th", or "last Saturday" within the week before. */
function spokenDate(random: Random, day: number, askedAt: number): string {
	const date = new Date(day);
	const dayOfMonth = date.getUTCDate();
	const weekday = WEEKDAYS[date.getUTCDay()]!;
	const daysAgo = Math.floor((askedAt - day) / DAY);
	if (daysAgo >= 1 && daysAgo <= 6 && random.chance(0.5)) return daysAgo === 1 ? 'yesterday' : `last ${weekday}`;
	return random.pick([
		`on ${MONTH_NAMES[date.getUTCMonth()]} ${dayOfMonth}`,
		`on the ${ordinal(dayOfMonth)}`,
		`on ${weekday} the ${ordinal(dayOfMonth)}`,
		`on ${dayOfMonth} ${MONTH_NAMES[date.getUTCMonth()]}`
	]);
}

function ordinal(day: number): string {
	const suffix = day % 10 === 1 && day !== 11 ? 'st' : day % 10 === 2 && day !== 12 ? 'nd' : day % 10 === 3 && day !== 13 ? 'rd' : 'th';
	return `${day}${suffix}`;
}
