import { container } from '@sapphire/framework';
import { type PermissionResolvable, PermissionFlagsBits, PermissionsBitField } from 'discord.js';
import { z } from 'zod';
import { closestName, configProblems, invalidConfig, MemoryConfigSchema } from '../engine';
import type { CooledSubcommand, MemoryPluginOptions, SessionCooldownOptions } from './options';

/**
 * The plugin's options as the pieces read them: checked before login (every bad field named at once, with the engine's
 * settings when any is bad: `INVALID_CONFIG`), with every default here and nowhere else. When the options are valid, the
 * engine's own settings (`storeUrl`, `config`) are checked by `MemoryEngine.open`, which names them the same way.
 */
export interface ResolvedPluginOptions {
	resolvePrivacyLevel: MemoryPluginOptions['resolvePrivacyLevel'] | null;
	defaultErrorListener: boolean;
	sessionCommand: boolean;
	sessionCommandName: string;
	sessionStrings: NonNullable<MemoryPluginOptions['sessionStrings']>;
	commandGuildIds: readonly string[];
	moderatorPermission: PermissionResolvable;
	confirmationTimeoutMs: number;
	/** Each cooled subcommand's cooldown; absent when it has none. */
	sessionCooldowns: Partial<Record<CooledSubcommand, Required<SessionCooldownOptions>>>;
	metrics: MemoryPluginOptions['metrics'];
}

/**
 * How often a member may run each: `export` builds the whole file again; `clear` asks twice when it erases everything
 * (a short-term clear, then `scope:all`); `privacy` a change and a look at it.
 */
export const DEFAULT_SESSION_COOLDOWNS: Readonly<Record<CooledSubcommand, Required<SessionCooldownOptions>>> = {
	export: { delay: 60_000, limit: 1 },
	clear: { delay: 60_000, limit: 2 },
	privacy: { delay: 60_000, limit: 3 }
};

/** Discord's rule for a command's name: 1 to 32 lower-case letters, digits, `-` or `_`, in any script. */
const COMMAND_NAME = /^[-_\p{Ll}\p{Lm}\p{Lo}\p{N}\p{sc=Deva}\p{sc=Thai}]{1,32}$/u;
const SNOWFLAKE = /^\d{17,20}$/;
/** A component's interaction token lasts 15 minutes: buttons cannot answer after it. */
const MAX_CONFIRMATION_MS = 15 * 60_000;
const COOLDOWN_SHAPE = 'false, or { delay, limit } (milliseconds from 0 to 86,400,000; runs from 1 to 1,000)';

const cooldown = z.union(
	[
		z.literal(false),
		z.strictObject({
			delay: z.number().int().min(0).max(86_400_000).optional(),
			limit: z.number().int().min(1).max(1000).optional()
		})
	],
	{ error: `expected ${COOLDOWN_SHAPE}` }
);

const OptionsSchema = z.strictObject({
	storeUrl: z.string().optional(),
	keyv: z
		.custom<object>((value) => typeof value === 'object' && value !== null && typeof (value as { get?: unknown }).get === 'function', {
			message: 'expected a Keyv instance'
		})
		.optional(),
	config: z.record(z.string(), z.unknown()).optional(),
	resolvePrivacyLevel: z
		.custom<NonNullable<MemoryPluginOptions['resolvePrivacyLevel']>>((value) => typeof value === 'function', {
			message: 'expected a function'
		})
		.optional(),
	defaultErrorListener: z.boolean().default(true),
	sessionCommand: z.boolean().default(true),
	sessionCommandName: z
		.string()
		.regex(COMMAND_NAME, 'expected 1 to 32 lower-case letters, digits, - or _ (Discord’s rule for a command name)')
		.default('session'),
	sessionStrings: z.record(z.string(), z.record(z.string(), z.string())).default({}),
	commandGuildIds: z.array(z.string().regex(SNOWFLAKE, 'expected a guild id (17 to 20 digits)')).default([]),
	moderatorPermission: z
		.custom<PermissionResolvable>((value) => {
			try {
				PermissionsBitField.resolve(value as PermissionResolvable);
				return value !== undefined && value !== null;
			} catch {
				return false;
			}
		}, 'expected a permission (a PermissionFlagsBits value, its name, or a list of them)')
		.default(PermissionFlagsBits.ManageMessages),
	confirmationTimeoutMs: z.number().int().min(1).max(MAX_CONFIRMATION_MS).default(60_000),
	sessionCooldowns: z
		.union([z.literal(false), z.strictObject({ export: cooldown.optional(), clear: cooldown.optional(), privacy: cooldown.optional() })], {
			error: `expected false, or { export, clear, privacy } each ${COOLDOWN_SHAPE}`
		})
		.default({}),
	metrics: z
		.union(
			[z.literal(false), z.strictObject({ registry: z.custom<object>((value) => typeof value === 'object' && value !== null).optional() })],
			{
				error: 'expected false, or { registry } (a prom-client Registry)'
			}
		)
		.default({})
});

/** `memory` of the client's options, checked and completed; throws `INVALID_CONFIG` naming every bad field at once. */
export function resolvePluginOptions(options: MemoryPluginOptions | undefined): ResolvedPluginOptions {
	const { parsed, problems } = checked(options);
	if (!parsed.success || problems.length > 0) throw invalidConfig(problems);
	const { sessionCooldowns, resolvePrivacyLevel, ...rest } = parsed.data;
	return {
		...rest,
		resolvePrivacyLevel: resolvePrivacyLevel ?? null,
		sessionStrings: rest.sessionStrings as ResolvedPluginOptions['sessionStrings'],
		metrics: rest.metrics as ResolvedPluginOptions['metrics'],
		sessionCooldowns: cooldownsOf(sessionCooldowns)
	};
}

/**
 * What is wrong with the plugin's options, one line each, and then, when anything is, with the engine's settings they
 * carry and the environment: a client's login stops on all of them at once (register.ts). None when the options are valid.
 */
export function startupProblems(options: MemoryPluginOptions | undefined, env: NodeJS.ProcessEnv = process.env): string[] {
	const { problems } = checked(options);
	if (problems.length === 0) return [];
	const config = isObject(options?.config) ? options.config : {};
	const storeUrl = typeof options?.storeUrl === 'string' ? { storeUrl: options.storeUrl } : {};
	const labels = Object.fromEntries(Object.keys(MemoryConfigSchema.shape).map((key) => [key, `memory.config.${key}`]));
	return [...problems, ...configProblems({ ...config, ...storeUrl }, env, { ...labels, storeUrl: 'memory.storeUrl' })];
}

/** The options parsed, and what is wrong with them. */
function checked(options: MemoryPluginOptions | undefined) {
	const parsed = OptionsSchema.safeParse(options ?? {});
	const config = isObject(options?.config) ? options.config : undefined;
	return { parsed, problems: [...(parsed.success ? [] : optionProblems(parsed.error.issues)), ...unknownSettingKeys(config)] };
}

/** Each of zod's issues as a line naming the field and what it expects; a misspelt option with the closest one. */
function optionProblems(issues: readonly z.core.$ZodIssue[]): string[] {
	return issues.flatMap((issue) => {
		const path = ['memory', ...issue.path.map(String)].join('.');
		// A misspelt option would otherwise be dropped in silence.
		if (issue.code === 'unrecognized_keys')
			return issue.keys.map((key) => `${path}.${key}: not an option of the plugin${didYouMean(key, Object.keys(OptionsSchema.shape))}`);
		return [`${path}: ${issue.message}.`];
	});
}

/** The keys of `memory.config` that are no setting of the engine's, which would be dropped in silence. */
function unknownSettingKeys(config: Record<string, unknown> | undefined): string[] {
	const settings = Object.keys(MemoryConfigSchema.shape);
	return Object.keys(config ?? {})
		.filter((key) => !settings.includes(key))
		.map((key) => `memory.config.${key}: not a setting of the engine${didYouMean(key, settings)}`);
}

function didYouMean(given: string, known: readonly string[]): string {
	const closest = closestName(given, known);
	return closest?.likelyTypo ? `; did you mean ${closest.name}?` : '.';
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Each subcommand's cooldown: the default, changed field by field; none when turned off or its delay is 0. */
function cooldownsOf(chosen: false | Partial<Record<CooledSubcommand, false | SessionCooldownOptions>>): ResolvedPluginOptions['sessionCooldowns'] {
	const cooldowns: ResolvedPluginOptions['sessionCooldowns'] = {};
	if (chosen === false) return cooldowns;
	for (const [subcommand, defaults] of Object.entries(DEFAULT_SESSION_COOLDOWNS) as [CooledSubcommand, Required<SessionCooldownOptions>][]) {
		const own = chosen[subcommand];
		if (own === false) continue;
		const delay = own?.delay ?? defaults.delay;
		if (delay > 0) cooldowns[subcommand] = { delay, limit: own?.limit ?? defaults.limit };
	}
	return cooldowns;
}

const resolved = new WeakMap<object, ResolvedPluginOptions>();

/**
 * The options of `client` (the container's by default), as {@link resolvePluginOptions} makes them: resolved when the
 * plugin registers, and again only when the client is given another `memory` object (a field changed in place is not
 * seen).
 */
export function pluginOptions(client: { options: { memory?: MemoryPluginOptions } } | undefined = container.client): ResolvedPluginOptions {
	if (!client) return resolvePluginOptions(undefined);
	const given = client.options.memory ?? client;
	let options = resolved.get(given);
	if (!options) {
		options = resolvePluginOptions(client.options.memory);
		resolved.set(given, options);
	}
	return options;
}
