/** The small Discord of the forgetting property: its servers, members and personas, and the steps a run is made of. */
import type { PrivacyLevel } from '../../src';

export const SERVERS = [
	{
		id: '1163485926733139968',
		channels: [
			{ id: '1163485927412613161', parent: null },
			{ id: '1163485927412613165', parent: null },
			{ id: '1163485927412613170', parent: '1163485927412613161' }
		]
	},
	{
		id: '1187329150225436772',
		channels: [
			{ id: '1187329150900318219', parent: null },
			{ id: '1187329150900318231', parent: '1187329150900318219' }
		]
	}
] as const;
export const MEMBERS = [
	{ id: '258334176382853120', name: 'Maya', dm: '1199236758364520458' },
	{ id: '301792264318746624', name: 'Zed', dm: '1199236758364520733' },
	{ id: '417209733560483841', name: 'Noa', dm: '1199236758364521019' }
] as const;
export const PERSONAS = [
	{ id: 'aria', name: 'Aria', lineage: 'muse' },
	{ id: 'nyx', name: 'Nyx', lineage: null },
	{ id: 'aurora', name: 'Aurora', lineage: 'muse' }
] as const;

/** The grace period of a server's purge, when the world has one (`MEMORY_SERVER_PURGE_GRACE_HOURS`). */
export const PURGE_GRACE_HOURS = 2;

export interface WorldShape {
	members: number;
	personas: number;
	maxMessagesPerChannel: number;
	crudeMessageCount: number;
	/** Per member: opted in to cross-server memory. */
	optIn: boolean[];
}

export type Place = { server: number; channel: number } | { dm: true };

export type Step =
	| {
			kind: 'turn';
			member: number;
			place: Place;
			history: number;
			responders: number[];
			echo: number | null;
			/** The host gives no message ids (the engine then names messages by their content). */
			noIds: boolean;
	  }
	| { kind: 'chat'; member: number; place: Place }
	| { kind: 'ask'; member: number; place: Place; persona: number; word: number }
	| { kind: 'delete'; picks: number[]; stale: boolean; namesMember: boolean }
	/** Forget this message: a member (or, as a moderator, anyone's) asks memory to forget one message, which stays on Discord. */
	| { kind: 'forgetMessage'; pick: number; by: number; moderator: boolean }
	| { kind: 'edit'; pick: number; withText: boolean }
	| { kind: 'clear'; member: number }
	| { kind: 'clearAll'; member: number }
	| { kind: 'privacy'; member: number; level: PrivacyLevel }
	| { kind: 'leave'; member: number; server: number }
	/** With `grace`, the bot is removed and the sweep purges the server once the grace period is over. */
	| { kind: 'purge'; server: number; grace: boolean }
	| { kind: 'saveTopic'; member: number }
	| { kind: 'forgetTopic'; member: number; pick: number }
	| { kind: 'tick'; minutes: number; sweep: boolean };

/** The steps that forget something. */
export type Forgetting = Exclude<Step, { kind: 'turn' | 'chat' | 'ask' | 'tick' }>;
