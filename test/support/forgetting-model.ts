/**
 * What docs/guarantees.md#forgetting promises is gone, word by word, for the forgetting property. Every text holds
 * unique marker words (`qx<n>zq`), its own and those it repeats; a word must be gone only when every text holding it is
 * gone: a reply that stays (an edit leaves the replies to the old text; an erasure leaves the replies to other members'
 * turns) may keep the words it repeated.
 */

/** How far a text is gone, as promised: not at all, from every short-term copy (the archive keeps it), from every copy. */
export const Gone = { Kept: 0, FromShortTerm: 1, Everywhere: 2 } as const;
export type Gone = (typeof Gone)[keyof typeof Gone];

/** One text: a message's text before or after an edit, or a topic note. */
export interface Text {
	words: string[];
	gone: Gone;
	/** Why it is gone, for the report. */
	why: string;
}

/** A message of the small Discord, as the test knows it. */
export interface Posted {
	/** Undefined where the host gave none. */
	id: string | undefined;
	role: 'user' | 'persona';
	authorId: string;
	authorName: string;
	serverId: string | null;
	channelId: string;
	ts: number;
	/** Its texts, the current one last. */
	texts: Text[];
	/** How far any later text of it is gone: an erased message's new text is never stored either. */
	floor: Gone;
	/** A reply its turn stored: the member whose turn it answered, and their message. */
	answers?: { memberId: string; messageId: string | undefined };
}

/** A member's topic note. */
export type Note = Text & { slug: string };

/** A member as the model needs them: their id, name and DM channel. */
export interface ModelMember {
	id: string;
	name: string;
	dm: string;
}

const MARKER = /qx\d+zq/g;
const GONE_NAMES = ['kept', 'gone from short-term memory', 'gone'] as const;

/** What of `gone` the text holds: `<word> (<why>) in <place>`. */
export function wordsFound(text: string, gone: ReadonlyMap<string, string>, place: string): string[] {
	return [...text.matchAll(MARKER)].flatMap(([word]) => (gone.has(word) ? [`${word} (${gone.get(word)}) in ${place}`] : []));
}

export class ForgettingModel {
	public readonly posted: Posted[] = [];
	private readonly notes = new Map<string, Note[]>();

	/** Marks a message (every text it had, and any it will have) gone at least as far as `gone`. */
	public drop(message: Posted, gone: Gone, why: string): void {
		if (gone > message.floor) message.floor = gone;
		for (const text of message.texts) if (gone > text.gone) Object.assign(text, { gone, why });
	}

	/** Deleted on Discord: the messages and the replies to them. */
	public deleted(messages: readonly Posted[], why: string): void {
		for (const message of messages) {
			this.drop(message, Gone.Everywhere, `deleted (${message.authorName}'s, ${why})`);
			for (const reply of this.posted)
				if (reply.answers?.messageId === message.id) this.drop(reply, Gone.Everywhere, `a reply to ${message.id}, deleted`);
		}
	}

	/** Edited on Discord: its old text goes everywhere; the new one (`word`) is as gone as anything it says. */
	public edited(message: Posted, word: string, why: string): void {
		const old = message.texts.at(-1)!;
		message.texts.push({ words: [word], gone: message.floor, why: 'written by a member erased before' });
		if (old.gone < Gone.Everywhere) Object.assign(old, { gone: Gone.Everywhere, why });
	}

	/** `/session clear`: their words leave short-term memory (the archive keeps them); the replies to their turns leave every copy. */
	public cleared(member: ModelMember, at: number): void {
		for (const message of this.before(at)) {
			if (message.role === 'user' && message.authorId === member.id) this.drop(message, Gone.FromShortTerm, `${member.name} cleared`);
			else if (this.answers(message, member)) this.drop(message, Gone.Everywhere, `a reply to ${member.name}, who cleared`);
		}
	}

	/** `clear scope:all`, or FULL: their messages, the replies to their turns, every persona line of their DMs, their topics. */
	public erased(member: ModelMember, at: number, why: string): void {
		for (const message of this.before(at))
			if ((message.role === 'user' && message.authorId === member.id) || this.answers(message, member))
				this.drop(message, Gone.Everywhere, `${member.name} ${why}`);
		this.dropNotes(member.id, `${member.name} ${why}`);
	}

	/** A member left a server: their messages there and the replies to their turns there. */
	public left(member: ModelMember, serverId: string, at: number): void {
		for (const message of this.before(at))
			if (message.serverId === serverId && (message.authorId === member.id || message.answers?.memberId === member.id))
				this.drop(message, Gone.Everywhere, `${member.name} left the server`);
	}

	/** The bot left a server: everything said there. */
	public purged(serverId: string, at: number): void {
		for (const message of this.before(at)) if (message.serverId === serverId) this.drop(message, Gone.Everywhere, 'the bot left the server');
	}

	public saved(memberId: string, slug: string, word: string): void {
		this.notes.set(memberId, [...(this.notes.get(memberId) ?? []), { slug, words: [word], gone: Gone.Kept, why: '' }]);
	}

	/** The member's topics not forgotten yet. */
	public topics(memberId: string): Note[] {
		return (this.notes.get(memberId) ?? []).filter((note) => note.gone === Gone.Kept);
	}

	/** Their topics go (forgotten, erased, or they left MINIMAL), or one of them. */
	public dropNotes(memberId: string, why: string, only?: Note): void {
		for (const note of this.notes.get(memberId) ?? [])
			if ((only === undefined || note === only) && note.gone < Gone.Everywhere) Object.assign(note, { gone: Gone.Everywhere, why });
	}

	/** Marker words every text holding them is gone from (at least as far as `gone`), with why. */
	public wordsGone(gone: Gone): Map<string, string> {
		const least = new Map<string, Text>();
		for (const text of [...this.posted.flatMap((message) => message.texts), ...[...this.notes.values()].flat()])
			for (const word of text.words) {
				const known = least.get(word);
				if (!known || text.gone < known.gone) least.set(word, text);
			}
		return new Map(
			[...least].flatMap(([word, text]) =>
				text.gone >= gone && text.gone > Gone.Kept ? [[word, `${GONE_NAMES[text.gone]}: ${text.why}`]] : []
			)
		);
	}

	private before(at: number): Posted[] {
		return this.posted.filter((message) => message.ts <= at);
	}

	/** A reply to a turn of the member's, or a persona line of their DM (every one a reply to them). */
	private answers(message: Posted, member: ModelMember): boolean {
		return message.answers?.memberId === member.id || (message.role === 'persona' && message.channelId === member.dm);
	}
}
