import { blankSettings } from './config';
import { unknownSettings, unknownSettingWarning } from './unknownSettings';

/**
 * What to warn an operator about before the settings are read, one line each: a variable that looks like a setting and
 * is none (a misspelling may be why a setting is refused or a default used), and a setting set empty, which is read as
 * unset.
 */
export function settingWarnings(env: NodeJS.ProcessEnv): string[] {
	return [
		...unknownSettings(env).map(unknownSettingWarning),
		...blankSettings(env).map((name) => `[memory] ${name} is set but empty: it is read as unset, so its default applies.`)
	];
}
