import { type ReadSettings, settingLabel, settingNamed } from './readSetting';

// The rules between settings, in one place: which default follows another setting, and which settings must agree.
// Each rule looks only at settings valid alone, so that its problems are told with theirs, in one run.

/** A summary outlives its messages: the summary TTL, left unset, follows a TTL raised past its default. */
export function followedDefaults(settings: ReadSettings): ReadSettings {
	const { ttlHours, summaryTtlHours } = settings;
	if (summaryTtlHours.source !== 'default' || !ttlHours.valid || Number(ttlHours.value) <= Number(summaryTtlHours.value)) return settings;
	return { ...settings, summaryTtlHours: { ...summaryTtlHours, value: ttlHours.value } };
}

/** What is wrong between settings that are each valid alone, one line each. */
export function relationProblems(settings: ReadSettings): string[] {
	const problems: string[] = [];
	const { encryptionKey, encryptionPreviousKeys, ttlHours, summaryTtlHours } = settings;
	if (encryptionPreviousKeys.valid && encryptionPreviousKeys.value !== null && encryptionKey.valid && encryptionKey.value === null) {
		problems.push(
			`${settingLabel(encryptionPreviousKeys)} is set without ${settingLabel(encryptionKey)}; set the key new values are sealed with too.`
		);
	}
	if (ttlHours.valid && summaryTtlHours.valid && Number(summaryTtlHours.value) < Number(ttlHours.value)) {
		problems.push(
			`${settingNamed(summaryTtlHours, String(summaryTtlHours.value))} is below ${settingNamed(ttlHours, String(ttlHours.value))}; ` +
				`a summary must live at least as long as the messages (unset, it follows ${ttlHours.name}).`
		);
	}
	return problems;
}
