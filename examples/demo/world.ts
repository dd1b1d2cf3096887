import { ChannelType } from 'discord.js';
import type { FakeDiscordOptions, FakeUserInit } from '../../tools/fake-discord';

/** The bot's account on the fake Discord: members mention it as `<@id>`. */
export const SOL_BOT: FakeUserInit = { id: '1000000000000000001', username: 'sol', globalName: 'Sol', bot: true };

/** The demo's members; their display names are what memory records. */
export const MAYA: FakeUserInit = { id: '200000000000000001', username: 'maya', globalName: 'Maya' };
export const THEO: FakeUserInit = { id: '200000000000000002', username: 'theo', globalName: 'Theo' };
export const JUN: FakeUserInit = { id: '200000000000000003', username: 'jun', globalName: 'Jun' };

export const GUILD = '300000000000000001';
export const GENERAL = '300000000000000002';
export const TRIPS = '300000000000000003';
/** A thread of #trips. */
export const PORTO = '300000000000000004';
export const MAYA_DM = '400000000000000001';

/** The demo server: #general, #trips and its thread porto-plans, and Maya's DM with the bot. */
export const DEMO_WORLD: FakeDiscordOptions = {
	botUser: SOL_BOT,
	users: [MAYA, THEO, JUN],
	guilds: [
		{
			id: GUILD,
			name: 'Demo Server',
			channels: [
				{ id: GENERAL, name: 'general' },
				{ id: TRIPS, name: 'trips' },
				{ id: PORTO, name: 'porto-plans', type: ChannelType.PublicThread, parentId: TRIPS }
			],
			members: [{ userId: MAYA.id }, { userId: THEO.id }, { userId: JUN.id }]
		}
	],
	dmChannels: [{ id: MAYA_DM, recipientId: MAYA.id }]
};

/** Names for the ids the demo prints: `<#300000000000000002>` reads `#general`. */
export const NAMES = new Map<string, string>([
	[SOL_BOT.id, 'Sol'],
	[MAYA.id, 'Maya'],
	[THEO.id, 'Theo'],
	[JUN.id, 'Jun'],
	[GUILD, 'Demo Server'],
	[GENERAL, '#general'],
	[TRIPS, '#trips'],
	[PORTO, '#porto-plans'],
	[MAYA_DM, 'DM Maya']
]);
