/**
 * `sapphire-plugin-memory/testing`: a local fake Discord, REST and gateway on 127.0.0.1, that a real `SapphireClient`
 * logs in to, for your own bot's tests. Act as members (messages, slash commands, autocomplete, buttons, select
 * menus) and read what the bot sent back, request by request. No token, no network.
 *
 * It needs `ws` (installed with discord.js) and nothing of the plugin: import it from your tests only.
 *
 * @example
 * import { FakeDiscord } from 'sapphire-plugin-memory/testing';
 *
 * const fake = await FakeDiscord.start({
 * 	users: [{ id: '200000000000000001', username: 'maya' }],
 * 	guilds: [{ id: '300000000000000001', channels: [{ id: '300000000000000002' }], members: [{ userId: '200000000000000001' }] }]
 * });
 * const client = new SapphireClient({ intents, rest: { api: fake.restUrl }, baseUserDirectory: null });
 * await client.login('fake-token');
 * await fake.waitForCommand('session');
 * const { id } = fake.slashCommand({ name: 'session', subcommand: 'status', user: '200000000000000001', channelId: '300000000000000002' });
 * const { data, callbackAfterMs } = await fake.waitForAnswer(id); // the bot's answer as the member sees it, and how soon it came
 */
export { FakeDiscord } from '../tools/fake-discord/FakeDiscord';
export { SnowflakeGenerator } from '../tools/fake-discord/snowflakes';
export type {
	AutocompleteInput,
	ClickButtonInput,
	FakeInteraction,
	MessageCommandInput,
	SelectMenuInput,
	SlashCommandInput,
	UserMessageInput
} from '../tools/fake-discord/actions';
export type { CommandOptionsInput, ExplicitOption, OptionValue } from '../tools/fake-discord/commandOptions';
export type { InteractionActor } from '../tools/fake-discord/interactionPayloads';
export type { HistoryQuery } from '../tools/fake-discord/messages';
export type { RequestPredicate } from '../tools/fake-discord/recorder';
export type {
	ApiObject,
	FakeChannelInit,
	FakeDiscordOptions,
	FakeDmChannelInit,
	FakeGuildInit,
	FakeMemberInit,
	FakeRoleInit,
	FakeUserInit,
	InteractionAnswer,
	RecordedFile,
	RecordedRequest,
	UserRef
} from '../tools/fake-discord/types';
