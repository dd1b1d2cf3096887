import { MemoryEnvironment } from './config';

/** The prefixes of the engine's variables: a variable with one of them that the engine does not read is likely a typo. */
const SETTING_PREFIX = /^(MEMORY_|SHORT_TERM_MEMORY_)/;

/** A variable that looks like a setting and is none, with the setting whose name is closest to it. */
export interface UnknownSetting {
	name: string;
	closest: string;
	/** Whether the two names are close enough for a misspelling (a few characters apart). */
	likelyTypo: boolean;
}

/**
 * The `MEMORY_*` and `SHORT_TERM_MEMORY_*` variables of `env` that the engine does not read, each with the closest
 * name it does read (`MEMORY_STORE_UR` → `MEMORY_STORE_URL`), so a misspelt setting does not go silently unused.
 */
export function unknownSettings(env: NodeJS.ProcessEnv): UnknownSetting[] {
	const known = Object.keys(MemoryEnvironment);
	return Object.keys(env)
		.filter((name) => SETTING_PREFIX.test(name) && !known.includes(name))
		.sort()
		.map((name) => {
			const closest = known.reduce((best, candidate) => (editDistance(name, candidate) < editDistance(name, best) ? candidate : best));
			return { name, closest, likelyTypo: editDistance(name, closest) <= Math.max(2, Math.floor(name.length / 5)) };
		});
}

/** The warning for one unknown variable, as the engine logs it. */
export function unknownSettingWarning({ name, closest, likelyTypo }: UnknownSetting): string {
	const hint = likelyTypo ? `did you mean ${closest}?` : `the closest is ${closest}.`;
	return `[memory] ${name} is not a setting of sapphire-plugin-memory: ${hint} (Ignore this if ${name} is meant for something else.)`;
}

/** Levenshtein distance: the fewest single-character insertions, deletions and substitutions that turn `a` into `b`. */
function editDistance(a: string, b: string): number {
	let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
	for (let i = 1; i <= a.length; i++) {
		const current = [i];
		for (let j = 1; j <= b.length; j++) {
			current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
		}
		previous = current;
	}
	return previous[b.length]!;
}
