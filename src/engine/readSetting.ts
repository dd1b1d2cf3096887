import type { MemoryEnvironment } from './MemoryEnvironment';

type Environment = typeof MemoryEnvironment;

/** One setting as read: where its value came from, how an error names it, and its value if its schema takes it. */
export interface ReadSetting {
	/** The environment variable. */
	name: keyof Environment;
	/** Given as an option (named `label`), in the environment, or neither (its default). */
	source: 'option' | 'environment' | 'default';
	label: string;
	/** Whether the schema takes the value. */
	valid: boolean;
	/** The value parsed by its schema; what was given when it is not valid. */
	value: unknown;
}

/** Every setting as read, by its key. */
export type ReadSettings = Record<Environment[keyof Environment]['key'], ReadSetting>;

/** `NAME=value`, or `label=value (NAME)` for an option: a setting as an error names it. */
export function settingNamed(setting: ReadSetting, value: string): string {
	return setting.source === 'option' ? `${setting.label}=${value} (${setting.name})` : `${setting.name}=${value}`;
}

/** A setting's variable, or the option that stands for it: `label (NAME)`. */
export function settingLabel(setting: ReadSetting): string {
	return setting.source === 'option' ? `${setting.label} (${setting.name})` : setting.name;
}
