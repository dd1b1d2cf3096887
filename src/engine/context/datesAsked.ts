import type { DateSpan } from '../archive/ScopeIndex';

const DAY = 86_400_000;
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];
const COUNTS: Record<string, number> = { a: 1, an: 1, one: 1, two: 2, three: 3, four: 4, five: 5, six: 6, seven: 7, eight: 8, nine: 9, ten: 10 };

const MONTH = String.raw`(${MONTHS.join('|')}|${MONTHS.map((month) => month.slice(0, 3)).join('|')}|sept)`;
const WEEKDAY = String.raw`(${WEEKDAYS.join('|')})`;
const ORDINAL = String.raw`(\d{1,2})(?:st|nd|rd|th)?`;
/** `the 9th`: with its suffix, so that `the 2 of us` is no date. */
const SUFFIXED = String.raw`(\d{1,2})(?:st|nd|rd|th)`;
const YEAR = String.raw`(?:,?\s+(\d{4}))?`;

/** What every form below needs: most questions, and chat's own words (`last`, `night`, `week`), are read no further. */
const MAY_NAME_A_DATE = new RegExp(
	[
		String.raw`\d`,
		String.raw`\b(?:yesterday|today|tonight|ago|last night)`,
		String.raw`\b(?:this|last|past|on) ${WEEKDAY}`,
		String.raw`\b(?:this|last|the|over the|at the) weekend`,
		String.raw`\b(?:this|last) (?:week|month)`,
		String.raw`\bthis (?:morning|afternoon|evening)`,
		String.raw`\b(?:in ${MONTH}|${MONTH} \d)`
	].join('|'),
	'i'
);

/** The forms a question names a day or a span by, each read relative to the time it is asked, in the order they are tried. */
const FORMS: { pattern: RegExp; span: (match: RegExpExecArray, now: number) => DateSpan | null }[] = [
	{ pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/, span: ([, year, month, day]) => dayOf(Date.UTC(Number(year), Number(month) - 1, Number(day))) },
	{
		pattern: new RegExp(String.raw`\b${ORDINAL}(?:\s+of)?\s+${MONTH}\b${YEAR}`, 'i'),
		span: ([, day, month, year], now) => pastDay(now, monthIndex(month!), Number(day), year)
	},
	{
		pattern: new RegExp(String.raw`\b${MONTH}\s+(?:the\s+)?${ORDINAL}\b${YEAR}`, 'i'),
		span: ([, month, day, year], now) => pastDay(now, monthIndex(month!), Number(day), year)
	},
	{
		pattern: new RegExp(String.raw`\b(?:in\s+)?${MONTH}\s+(\d{4})\b`, 'i'),
		span: ([, month, year]) => monthSpan(Number(year), monthIndex(month!))
	},
	{ pattern: new RegExp(String.raw`\bin\s+${MONTH}\b`, 'i'), span: ([, month], now) => pastMonth(now, monthIndex(month!)) },
	{
		pattern: new RegExp(String.raw`\b(?:${WEEKDAY}\s+)?the\s+${SUFFIXED}\b`, 'i'),
		span: ([, , day], now) => pastDayOfMonth(now, Number(day))
	},
	{ pattern: /\b(?:yesterday|last night)\b/i, span: (_, now) => dayOf(now - DAY) },
	{ pattern: /\b(?:today|tonight|this (?:morning|afternoon|evening))\b/i, span: (_, now) => dayOf(now) },
	{
		pattern: /\b(\d+|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+(day|week|month)s?\s+ago\b/i,
		span: ([, count, unit], now) => ago(now, COUNTS[count!.toLowerCase()] ?? Number(count), unit!.toLowerCase())
	},
	{
		pattern: new RegExp(String.raw`\b(last|this|on|past)\s+${WEEKDAY}\b`, 'i'),
		span: ([, which, weekday], now) => pastWeekday(now, weekday!, which!)
	},
	{ pattern: /\b(last|this|the|over the|at the)\s+weekend\b/i, span: ([, which], now) => weekend(now, which!.toLowerCase() === 'last') },
	{ pattern: /\b(last|this)\s+week\b/i, span: ([, which], now) => week(now, which!.toLowerCase() === 'last' ? 1 : 0) },
	{ pattern: /\b(last|this)\s+month\b/i, span: ([, which], now) => monthOf(now, which!.toLowerCase() === 'last' ? 1 : 0) },
	{ pattern: /\bin\s+(\d{4})\b/, span: ([, year]) => ({ from: Date.UTC(Number(year), 0, 1), to: Date.UTC(Number(year) + 1, 0, 1) }) }
];

/**
 * The day or span a question names ("on March 9", "the 9th", "last Saturday", "two weeks ago", "in May"), read as a
 * date before `now`, the time it is asked, in UTC as the context's dates are; null when it names none. Only the first
 * form found counts. A day is never in the future: "March 9" asked in February is last year's.
 */
export function dateAsked(query: string, now: number): DateSpan | null {
	if (!MAY_NAME_A_DATE.test(query)) return null;
	for (const { pattern, span } of FORMS) {
		const match = pattern.exec(query);
		if (!match) continue;
		const found = span(match, now);
		if (found && found.from < found.to) return found;
	}
	return null;
}

function dayOf(time: number): DateSpan {
	const from = Math.floor(time / DAY) * DAY;
	return { from, to: from + DAY };
}

function monthIndex(name: string): number {
	return MONTHS.findIndex((month) => month.startsWith(name.toLowerCase().slice(0, 3)));
}

/** Day `day` of month `month`: of `year`, or the latest such date not after `now`. */
function pastDay(now: number, month: number, day: number, year: string | undefined): DateSpan | null {
	if (day < 1 || day > 31) return null;
	if (year) return dayOf(Date.UTC(Number(year), month, day));
	const thisYear = new Date(now).getUTCFullYear();
	const candidate = Date.UTC(thisYear, month, day);
	return dayOf(candidate <= now ? candidate : Date.UTC(thisYear - 1, month, day));
}

/** Day `day` of this month, or of the month before when this month has not reached it. */
function pastDayOfMonth(now: number, day: number): DateSpan | null {
	if (day < 1 || day > 31) return null;
	const date = new Date(now);
	const month = date.getUTCDate() >= day ? date.getUTCMonth() : date.getUTCMonth() - 1;
	return dayOf(Date.UTC(date.getUTCFullYear(), month, day));
}

function monthSpan(year: number, month: number): DateSpan {
	return { from: Date.UTC(year, month, 1), to: Date.UTC(year, month + 1, 1) };
}

/** The latest month `month` that began before `now`. */
function pastMonth(now: number, month: number): DateSpan {
	const date = new Date(now);
	const year = month <= date.getUTCMonth() ? date.getUTCFullYear() : date.getUTCFullYear() - 1;
	return monthSpan(year, month);
}

/** The month `back` months before `now`'s. */
function monthOf(now: number, back: number): DateSpan {
	const date = new Date(now);
	return monthSpan(date.getUTCFullYear(), date.getUTCMonth() - back);
}

/** A day, week or month `count` of them before `now`, with the slack people mean by it. */
function ago(now: number, count: number, unit: string): DateSpan | null {
	if (!Number.isFinite(count) || count < 1 || count > 1000) return null;
	if (unit === 'day') return dayOf(now - count * DAY);
	if (unit === 'week') return { from: dayOf(now - count * 7 * DAY - 3 * DAY).from, to: dayOf(now - count * 7 * DAY + 3 * DAY).to };
	return monthOf(now, count);
}

/** The latest `weekday` before today ("last", "past"), or on or before today ("this", "on"). */
function pastWeekday(now: number, weekday: string, which: string): DateSpan {
	const today = new Date(now).getUTCDay();
	let back = (today - WEEKDAYS.indexOf(weekday.toLowerCase()) + 7) % 7;
	if (back === 0 && /^(last|past)$/i.test(which)) back = 7;
	return dayOf(now - back * DAY);
}

/** Monday to Sunday, `back` weeks before the week of `now`. */
function week(now: number, back: number): DateSpan {
	const monday = dayOf(now).from - ((new Date(now).getUTCDay() + 6) % 7) * DAY - back * 7 * DAY;
	return { from: monday, to: monday + 7 * DAY };
}

/** The weekend now under way, or the last one before it (`last`, or when none is under way). */
function weekend(now: number, last: boolean): DateSpan {
	const today = new Date(now).getUTCDay();
	const saturday = dayOf(now).from - ((today + 1) % 7) * DAY;
	const underWay = today === 0 || today === 6;
	const from = underWay && !last ? saturday : underWay ? saturday - 7 * DAY : saturday;
	return { from, to: from + 2 * DAY };
}
