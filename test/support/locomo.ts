import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ConversationFixture } from './recall';

/**
 * The LoCoMo files (snap-research/locomo, `data/locomo10.zip`, folder `data/multimodal_dialog/locomo10_v2/`) that
 * recall is developed on. The other five are held out: nothing here reads them.
 */
export const LOCOMO_DEVELOPMENT_FILES = ['26', '41', '43', '47', '49'] as const;

/** LoCoMo's question categories, by their number in its files. */
const CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'date', 3: 'open', 4: 'single-hop', 5: 'adversarial' };

interface LocomoTurn {
	speaker: string;
	dia_id: string;
	text: string;
	blip_caption?: string;
}

interface LocomoQuestion {
	question: string;
	evidence?: string[];
	category: number;
}

/**
 * The development half of LoCoMo in `directory` as conversations between a member (its first speaker) and a persona
 * (its second), or null when the directory lacks one of the files. A shared photo is the message's text followed by
 * its caption, as a bot that describes attachments would store it; a question's answer turns are its evidence turns
 * that the conversation holds.
 */
export function loadLocomo(directory: string): ConversationFixture[] | null {
	const paths = LOCOMO_DEVELOPMENT_FILES.map((name) => join(directory, `${name}.json`));
	if (!paths.every((path) => existsSync(path))) return null;
	return paths.map((path, number) => locomoConversation(JSON.parse(readFileSync(path, 'utf8')) as Record<string, unknown>, number + 1));
}

function locomoConversation(data: Record<string, unknown>, number: number): ConversationFixture {
	const member = data.speaker_a as string;
	const userId = String(470_000_000_000_000_000n + BigInt(number));
	const sessions: ConversationFixture['sessions'] = [];
	for (let session = 1; Array.isArray(data[`session_${session}`]); session++) {
		const turns = data[`session_${session}`] as LocomoTurn[];
		sessions.push({
			id: session,
			start: new Date(sessionStart(data[`session_${session}_date_time`] as string)).toISOString(),
			turns: turns.map((turn) => ({
				id: `L${number}:${turn.dia_id}`,
				speaker: turn.speaker === member ? userId : 'persona-sol',
				text: turn.blip_caption ? `${turn.text} [photo: ${turn.blip_caption}]` : turn.text
			}))
		});
	}
	const ids = new Set(sessions.flatMap((session) => session.turns.map((turn) => turn.id)));
	const questions = (data.qa as LocomoQuestion[])
		.map((question, index) => ({
			id: `L${number}:Q${index + 1}`,
			question: question.question,
			kind: CATEGORIES[question.category] ?? String(question.category),
			answerTurnIds: [...new Set((question.evidence ?? []).map((evidence) => `L${number}:${evidence.trim()}`))].filter((id) => ids.has(id))
		}))
		.filter((question) => question.answerTurnIds.length > 0);
	return {
		speakers: [
			{ id: userId, name: member, role: 'user' },
			{ id: 'persona-sol', name: data.speaker_b as string, role: 'persona' }
		],
		sessions,
		questions
	};
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/** `1:56 pm on 8 May, 2023` as a time (UTC). */
function sessionStart(text: string): number {
	const match = /^(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})$/i.exec(text.trim());
	if (!match) throw new Error(`LoCoMo: a session date that does not read as "1:56 pm on 8 May, 2023": "${text}"`);
	const [, hours, minutes, half, day, month, year] = match;
	const monthIndex = MONTHS.indexOf(month!.toLowerCase());
	if (monthIndex < 0) throw new Error(`LoCoMo: no month "${month}" in "${text}"`);
	const hour = (Number(hours) % 12) + (half!.toLowerCase() === 'pm' ? 12 : 0);
	return Date.UTC(Number(year), monthIndex, Number(day), hour, Number(minutes));
}
