import { ApplicationCommandOptionType } from 'discord.js';
import type { FakeState } from './state';
import type { ApiObject } from './types';

/** An option value as a user would type or pick it; ids for users, channels, roles. */
export type OptionValue = string | number | boolean;

/** An option spelled out, for when the type cannot be read from the registered command. */
export interface ExplicitOption {
	name: string;
	type: ApplicationCommandOptionType;
	value: OptionValue;
	focused?: boolean;
}

/** Options by name (types read from the registered command, else from the JS value), or spelled out. */
export type CommandOptionsInput = Record<string, OptionValue> | ExplicitOption[];

/** Where the options go in a command and which one has the focus (autocomplete). */
export interface OptionNesting {
	/** The registered command, whose option definitions give the types. */
	definition?: ApiObject;
	subcommandGroup?: string;
	subcommand?: string;
	options?: CommandOptionsInput;
	focused?: string;
}

/**
 * The `data.options` of a chat-input interaction: leaf options, wrapped in their subcommand
 * (type 1) and that in its group (type 2), as Discord nests them.
 */
export function nestOptions(nesting: OptionNesting): { options: ApiObject[]; leaves: ApiObject[] } {
	let definitions = (nesting.definition?.options as ApiObject[] | undefined) ?? [];
	const child = (name: string, type: ApplicationCommandOptionType) =>
		(definitions.find((option) => option.name === name && option.type === type)?.options as ApiObject[] | undefined) ?? [];
	if (nesting.subcommandGroup) definitions = child(nesting.subcommandGroup, ApplicationCommandOptionType.SubcommandGroup);
	if (nesting.subcommand) definitions = child(nesting.subcommand, ApplicationCommandOptionType.Subcommand);

	const leaves = leafOptions(nesting.options ?? {}, definitions, nesting.focused);
	let options = leaves;
	if (nesting.subcommand) options = [{ name: nesting.subcommand, type: ApplicationCommandOptionType.Subcommand, options }];
	if (nesting.subcommandGroup) options = [{ name: nesting.subcommandGroup, type: ApplicationCommandOptionType.SubcommandGroup, options }];
	return { options, leaves };
}

function leafOptions(input: CommandOptionsInput, definitions: ApiObject[], focused: string | undefined): ApiObject[] {
	const explicit: ExplicitOption[] = Array.isArray(input)
		? input
		: Object.entries(input).map(([name, value]) => ({
				name,
				value,
				type: (definitions.find((option) => option.name === name)?.type as ApplicationCommandOptionType | undefined) ?? inferType(value)
			}));
	return explicit.map((option) => ({
		name: option.name,
		type: option.type,
		value: option.value,
		...(option.focused || option.name === focused ? { focused: true } : {})
	}));
}

function inferType(value: OptionValue): ApplicationCommandOptionType {
	if (typeof value === 'boolean') return ApplicationCommandOptionType.Boolean;
	if (typeof value === 'number') return Number.isInteger(value) ? ApplicationCommandOptionType.Integer : ApplicationCommandOptionType.Number;
	return ApplicationCommandOptionType.String;
}

/** The `data.resolved` Discord adds for user, channel, role and mentionable options whose ids the fake knows. */
export function resolveOptions(leaves: readonly ApiObject[], state: FakeState, guildId: string | null, channelId: string): ApiObject | undefined {
	const users: ApiObject = {};
	const members: ApiObject = {};
	const channels: ApiObject = {};
	const roles: ApiObject = {};
	const guildRoles = guildId ? (state.findGuild(guildId)?.roles ?? []) : [];
	for (const leaf of leaves) {
		const id = String(leaf.value);
		const type = leaf.type as ApplicationCommandOptionType;
		if (type === ApplicationCommandOptionType.User || type === ApplicationCommandOptionType.Mentionable) {
			const user = state.findUser(id);
			if (user) users[id] = user;
			const member = guildId ? state.memberWithoutUser(guildId, id) : undefined;
			// Resolved members come with their permissions in the interaction's channel.
			if (member) members[id] = { ...member, permissions: String(state.permissionsIn(channelId, id)) };
		}
		if (type === ApplicationCommandOptionType.Role || type === ApplicationCommandOptionType.Mentionable) {
			const role = guildRoles.find((candidate) => candidate.id === id);
			if (role) roles[id] = role;
		}
		if (type === ApplicationCommandOptionType.Channel) {
			const channel = state.findChannel(id);
			if (channel) channels[id] = channel;
		}
	}
	const resolved = Object.fromEntries(
		Object.entries({ users, members, channels, roles }).filter(([, entries]) => Object.keys(entries as ApiObject).length > 0)
	);
	return Object.keys(resolved).length ? resolved : undefined;
}
