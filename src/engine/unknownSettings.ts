import { closestName, editDistance } from './closestName';
import { MemoryEnvironment } from './MemoryEnvironment';

/** The prefixes of the engine's variables, the longer first: every setting's name starts with one of them. */
const SETTING_PREFIXES = ['SHORT_TERM_MEMORY_', 'MEMORY_'] as const;

const KNOWN = Object.keys(MemoryEnvironment);

/** A variable that looks like a setting and is none, with the setting whose name is closest to it. */
export interface UnknownSetting {
	name: string;
	closest: string;
	/** Whether the two names are close enough for a misspelling (a few characters apart). */
	likelyTypo: boolean;
}

/**
 * The variables of `env` that look like settings the engine does not read, each with the closest name it does read: every
 * variable under a prefix of the engine's (`MEMORY_STORE_UR` → `MEMORY_STORE_URL`), and a variable under a misspelt prefix
 * when the rest is close to a setting's (`MEMOR_STORE_URL`, `SHORT_TERM_MEMROY_TTL_HOURS`). A variable that is not
 * near any of them (`PATH`, `DISCORD_TOKEN`) is none of the engine's business.
 */
export function unknownSettings(env: NodeJS.ProcessEnv): UnknownSetting[] {
	const found: UnknownSetting[] = [];
	for (const name of Object.keys(env).sort()) {
		if (KNOWN.includes(name)) continue;
		const readings = prefixReadings(name);
		if (readings.length === 0) continue;
		const closest = closestName(name, KNOWN, (given, known) => settingDistance(given, readings, known))!;
		const underOurPrefix = SETTING_PREFIXES.some((prefix) => name.startsWith(prefix));
		if (underOurPrefix || closest.likelyTypo) found.push({ name, closest: closest.name, likelyTypo: closest.likelyTypo });
	}
	return found;
}

/** The warning for one unknown variable, as the engine logs it. */
export function unknownSettingWarning({ name, closest, likelyTypo }: UnknownSetting): string {
	const hint = likelyTypo ? `did you mean ${closest}?` : `the closest is ${closest}.`;
	return `[memory] ${name} is not a setting of sapphire-plugin-memory: ${hint} (Ignore this if ${name} is meant for something else.)`;
}

/** A variable's name read as one of the prefixes (perhaps misspelt, `edits` away) and the rest. */
interface PrefixReading {
	prefix: string;
	edits: number;
	rest: string;
}

/**
 * The ways `name` starts with a prefix of the engine's, spelt right or nearly (an edit per seven characters of the prefix):
 * for each prefix, the cut nearest to it.
 */
function prefixReadings(name: string): PrefixReading[] {
	const readings: PrefixReading[] = [];
	for (const prefix of SETTING_PREFIXES) {
		const slack = Math.floor(prefix.length / 7);
		let best: PrefixReading | undefined;
		for (let cut = prefix.length - slack; cut <= Math.min(prefix.length + slack, name.length - 1); cut++) {
			const edits = editDistance(name.slice(0, cut), prefix);
			if (edits <= slack && (!best || edits < best.edits)) best = { prefix, edits, rest: name.slice(cut) };
		}
		if (best) readings.push(best);
	}
	return readings;
}

/**
 * How far a variable is from a setting, on the part after the prefix: the prefix's misspelling plus the distance of the
 * rest to the setting's own rest, or to the setting's whole name when the variable is under another prefix
 * (`MEMORY_SHORT_TREM_TTL_HOURS` is near `SHORT_TERM_MEMORY_TTL_HOURS`, not `MEMORY_STORE_TIMEOUT_MS`).
 */
function settingDistance(name: string, readings: readonly PrefixReading[], setting: string): number {
	let distance = editDistance(name, setting);
	for (const { prefix, edits, rest } of readings) {
		const settingRest = setting.startsWith(prefix) ? setting.slice(prefix.length) : setting;
		distance = Math.min(distance, edits + editDistance(rest, settingRest));
	}
	return distance;
}
