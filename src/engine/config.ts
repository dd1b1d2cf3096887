import { z } from 'zod';
import { MemoryError } from './errors';
import { MemoryEnvironment } from './MemoryEnvironment';
import { shownValue } from './schemas/shownValue';

export { MemoryEnvironment } from './MemoryEnvironment';

// The settings resolved: defaults, the environment and options merged, each checked against the table's schema, then
// the rules between settings.

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
 * @throws MemoryError `INVALID_CONFIG` naming every bad setting at once: the variable, the value and what is accepted.
 */
export function resolveConfig(overrides: Partial<MemoryConfig> = {}, env: NodeJS.ProcessEnv = process.env, labels: ConfigLabels = {}): MemoryConfig {
	const given = (name: EnvironmentName): unknown => {
		const raw: unknown = env[name];
		// Not a string (a host's own env object): its schema says what it expected.
		if (typeof raw !== 'string') return raw;
		return raw.trim() === '' ? undefined : raw.trim();
	};
	const input: Record<string, unknown> = {};
	const problems: string[] = [];
	for (const [name, spec] of Object.entries(MemoryEnvironment) as [EnvironmentName, Environment[EnvironmentName]][]) {
		const override = overrides[spec.key];
		input[spec.key] = override ?? given(name) ?? spec.default;
		if (accepts(spec.schema, input[spec.key])) continue;
		const value = override === undefined ? env[name] : override;
		// A key's value never reaches a log line; any other value is shown whole, as the operator wrote it.
		const shown =
			'secret' in spec
				? `(hidden${typeof value === 'string' ? `, ${value.length} characters` : ''})`
				: shownValue(value, Number.POSITIVE_INFINITY);
		const label = labels[spec.key] ?? `option memory.${spec.key}`;
		problems.push(`${override === undefined ? `${name}=${shown}` : `${label}=${shown} (${name})`}; expected ${spec.accepts}.`);
	}
	if (problems.length === 0) problems.push(...relationProblems(input));
	if (problems.length === 1) throw new MemoryError('INVALID_CONFIG', `Invalid memory configuration: ${problems[0]}`);
	if (problems.length > 1) {
		throw new MemoryError(
			'INVALID_CONFIG',
			`Invalid memory configuration, ${problems.length} settings:\n${problems.map((line) => `  ${line}`).join('\n')}`
		);
	}
	return Object.freeze(MemoryConfigSchema.parse(input));
}

/** Whether `schema` takes `value`; a value whose reading throws (a Proxy's trap, a getter) it does not. */
function accepts(schema: z.ZodType, value: unknown): boolean {
	try {
		return schema.safeParse(value).success;
	} catch {
		return false;
	}
}

/** The rules between settings, once each is valid on its own. */
function relationProblems(input: Record<string, unknown>): string[] {
	const problems: string[] = [];
	if (input.encryptionPreviousKeys !== null && input.encryptionKey === null) {
		problems.push('MEMORY_ENCRYPTION_PREVIOUS_KEYS is set without MEMORY_ENCRYPTION_KEY; set the key new values are sealed with too.');
	}
	if (Number(input.summaryTtlHours) < Number(input.ttlHours)) {
		problems.push(
			`SHORT_TERM_MEMORY_SUMMARY_TTL_HOURS=${String(input.summaryTtlHours)} is below SHORT_TERM_MEMORY_TTL_HOURS=${String(input.ttlHours)}; ` +
				'a summary must live at least as long as the messages.'
		);
	}
	return problems;
}
