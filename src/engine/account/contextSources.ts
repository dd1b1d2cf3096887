import { carriesWordsOf } from '../privacy/voices';
import { visibilityOf } from '../privacy/visibility';
import {
	type ContextSourceLine,
	type ContextSources,
	type ContextSourcesRecord,
	type ParsedContextSourcesViewer as Viewer,
	SOURCE_TIERS,
	type SourceGroup,
	type StoredMessage
} from '../schemas';
import type { AccountParts } from './AccountParts';

/**
 * What did you remember?: the stored messages the context of one persona reply drew on, as the member asking may see them
 * now. The record is the member's the reply answered (theirs, or found through the reply memory holds), for a reply in the
 * channel they ask from. Each message is read as memory holds it now, so a line forgotten since is gone; a line is shown
 * when its channel is one of the viewer's server they can view now, or the DM it came from is theirs, or (from another
 * server) it carries their own words. The rest is counted, never shown.
 */
export async function contextSources(parts: AccountParts, replyId: string, viewer: Viewer, now: number): Promise<ContextSources> {
	const found = await recordOf(parts, replyId, viewer, now);
	if (!found) return { kept: false, lines: [], hidden: 0, gone: 0, omitted: 0 };
	const { record, owner } = found;
	const read = await Promise.all(
		record.groups.map((group) => parts.ledger.findMessages({ serverId: group.serverId, channelId: group.channelId, userId: owner }, group.ids))
	);
	const authors = read.flatMap((messages) => [...messages.values()].flatMap((message) => message.authorId ?? []));
	const { visible } = await visibilityOf(parts.settings, authors);
	const visibleChannels = viewer.visibleChannelIds ? new Set(viewer.visibleChannelIds) : null;
	const canSee = (group: SourceGroup, message: StoredMessage) => {
		if (group.serverId === null) return owner === viewer.userId;
		if (group.serverId === viewer.serverId) return !visibleChannels || visibleChannels.has(group.channelId);
		return carriesWordsOf(message, viewer.userId);
	};
	const lines: ContextSourceLine[] = [];
	let hidden = 0;
	let gone = 0;
	record.groups.forEach((group, index) => {
		for (const id of group.ids) {
			const message = read[index]!.get(id);
			if (!message || !visible(message.authorId)) gone++;
			else if (canSee(group, message)) lines.push(lineOf(group, message, viewer.userId));
			else hidden++;
		}
	});
	const order = (line: ContextSourceLine) => SOURCE_TIERS.indexOf(line.tier);
	lines.sort((a, b) => order(a) - order(b) || a.ts - b.ts);
	return { kept: true, builtAt: record.at, lines, hidden, gone, omitted: record.omitted };
}

/** The record of the reply, and the member it answered: the viewer's own, or the member memory's copy of the reply names. */
async function recordOf(
	parts: AccountParts,
	replyId: string,
	viewer: Viewer,
	now: number
): Promise<{ record: ContextSourcesRecord; owner: string } | null> {
	const here = (record: ContextSourcesRecord | null) =>
		record && record.serverId === viewer.serverId && record.channelId === viewer.channelId ? record : null;
	const own = here(await parts.sources.find(viewer.userId, replyId, now));
	if (own) return { record: own, owner: viewer.userId };
	// A DM is its member's alone: a channel id a host names is no proof that it is the viewer's.
	if (viewer.serverId === null) return null;
	const reply = await parts.ledger.findMessage(viewer, replyId);
	const owner = reply?.role === 'persona' ? reply.replyToAuthorId : undefined;
	if (!owner || owner === viewer.userId) return null;
	const theirs = here(await parts.sources.find(owner, replyId, now));
	return theirs ? { record: theirs, owner } : null;
}

function lineOf(group: SourceGroup, message: StoredMessage, viewerId: string): ContextSourceLine {
	return {
		tier: group.tier,
		messageId: message.id,
		serverId: group.serverId,
		channelId: group.channelId,
		role: message.role,
		...(message.authorId === undefined ? {} : { authorId: message.authorId }),
		...(message.authorName === undefined ? {} : { authorName: message.authorName }),
		text: message.text,
		ts: message.ts,
		own: carriesWordsOf(message, viewerId)
	};
}
