import { z } from 'zod';
import { MemoryError } from './errors';
import { MemoryEnvironment } from './MemoryEnvironment';
import { shownValue } from './schemas/shownValue';
import { type ReadSetting, type ReadSettings, settingNamed } from './readSetting';
import { followedDefaults, relationProblems } from './settingRules';

export { MemoryEnvironment } from './MemoryEnvironment';

// The settings resolved: defaults, the environment and options merged, each checked against the table's schema, then
// the rules between settings (settingRules.ts).

type Environment = typeof MemoryEnvironment;
type EnvironmentName = keyof Environment;

/** The zod schema of the engine's settings, keyed as `MemoryEngine.open({ config })` takes them; {@link MemoryEnvironment} says what each is. */
export const MemoryConfigSchema = z.object(
	Object.fromEntries(Object.values(MemoryEnvironment).map((spec) => [spec.key, spec.schema])) as {
		[K in EnvironmentName as Environment[K]['key']]: Environment[K]['schema'];
	}
);

/** The engine's settings, after defaults, the environment and options are merged: a frozen value, read by every part. */
export type MemoryConfig = Readonly<z.output<typeof MemoryConfigSchema>>;

/** What a setting's error calls a value given in place of its variable, e.g. the CLI's `--store` for `storeUrl`. */
export type ConfigLabels = Partial<Record<keyof MemoryConfig, string>>;

/**
 * Merges defaults, the environment and explicit options (which win), and validates the result.
 * @param labels How the caller names options it passes, in the error (default: `option memory.<key>`).
 * @throws MemoryError `INVALID_CONFIG` naming every bad setting at once, each alone and between settings: the variable,
 * the value and what is accepted.
 */
export function resolveConfig(overrides: Partial<MemoryConfig> = {}, env: NodeJS.ProcessEnv = process.env, labels: ConfigLabels = {}): MemoryConfig {
	const { settings, problems } = readConfig(overrides, env, labels);
	if (problems.length > 0) throw invalidConfig(problems);
	return Object.freeze(MemoryConfigSchema.parse(Object.fromEntries(Object.entries(settings).map(([key, setting]) => [key, setting.value]))));
}

/** Every problem of the settings {@link resolveConfig} would resolve, one line each; none when they are valid. */
export function configProblems(overrides: Partial<MemoryConfig> = {}, env: NodeJS.ProcessEnv = process.env, labels: ConfigLabels = {}): string[] {
	return readConfig(overrides, env, labels).problems;
}

/** The error for invalid settings: one line, or one line per problem under a count. */
export function invalidConfig(problems: readonly string[]): MemoryError {
	if (problems.length === 1) return new MemoryError('INVALID_CONFIG', `Invalid memory configuration: ${problems[0]}`);
	return new MemoryError(
		'INVALID_CONFIG',
		`Invalid memory configuration, ${problems.length} settings:\n${problems.map((line) => `  ${line}`).join('\n')}`
	);
}

/**
 * The variables of `env` that are settings set to nothing but blanks (`SHORT_TERM_MEMORY_TTL_HOURS=`): each is read as
 * unset, so its default applies, and the engine warns about it.
 */
export function blankSettings(env: NodeJS.ProcessEnv): EnvironmentName[] {
	return (Object.keys(MemoryEnvironment) as EnvironmentName[]).filter((name) => {
		const raw: unknown = env[name];
		return typeof raw === 'string' && raw.trim() === '';
	});
}

function readConfig(overrides: Partial<MemoryConfig>, env: NodeJS.ProcessEnv, labels: ConfigLabels): { settings: ReadSettings; problems: string[] } {
	const settings = {} as Record<string, ReadSetting>;
	const problems: string[] = [];
	for (const [name, spec] of Object.entries(MemoryEnvironment) as [EnvironmentName, Environment[EnvironmentName]][]) {
		const override = overrides[spec.key];
		const fromEnvironment = given(env, name);
		const source = override === undefined ? (fromEnvironment === undefined ? 'default' : 'environment') : 'option';
		const value = source === 'option' ? override : source === 'environment' ? fromEnvironment : spec.default;
		const parsed = safeParse(spec.schema, value);
		const label = labels[spec.key] ?? `option memory.${spec.key}`;
		const setting: ReadSetting = { name, source, label, valid: parsed.valid, value: parsed.value };
		settings[spec.key] = setting;
		if (parsed.valid) continue;
		// A key's value never reaches a log line; any other value is shown whole, as the operator wrote it.
		const shown = source === 'option' ? override : env[name];
		const text =
			'secret' in spec
				? `(hidden${typeof shown === 'string' ? `, ${shown.length} characters` : ''})`
				: shownValue(shown, Number.POSITIVE_INFINITY);
		problems.push(`${settingNamed(setting, text)}; expected ${spec.accepts}.`);
	}
	const read = followedDefaults(settings as ReadSettings);
	return { settings: read, problems: [...problems, ...relationProblems(read)] };
}

/** A variable's value, trimmed; undefined when it is unset or blank (see {@link blankSettings}). */
function given(env: NodeJS.ProcessEnv, name: EnvironmentName): unknown {
	const raw: unknown = env[name];
	// Not a string (a host's own env object): its schema says what it expected.
	if (typeof raw !== 'string') return raw;
	return raw.trim() === '' ? undefined : raw.trim();
}

/** What `schema` makes of `value`; a value whose reading throws (a Proxy's trap, a getter) it does not take. */
function safeParse(schema: z.ZodType, value: unknown): { valid: boolean; value: unknown } {
	try {
		const parsed = schema.safeParse(value);
		return parsed.success ? { valid: true, value: parsed.data } : { valid: false, value };
	} catch {
		return { valid: false, value };
	}
}
