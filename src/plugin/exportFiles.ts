import { promisify } from 'node:util';
import { gzip as gzipCallback } from 'node:zlib';
import type { UserExport } from '../engine';

const gzip = promisify(gzipCallback);

/** Discord's attachment limit when an interaction does not carry its own (`attachment_size_limit`): 10 MiB. */
export const DEFAULT_ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024;

/** Beyond this many parts an export is the operators' to hand over (`sapphire-memory export`), not a chat's. */
export const MAX_EXPORT_PARTS = 50;

/** The lists of an export that run on from one part to the next. */
const LISTS = ['shortTerm', 'sharedShortTerm', 'archive', 'topics'] as const;

type ListName = (typeof LISTS)[number];

/**
 * One part of an export too large for one file: a JSON document of its own, with the export's lists from where the
 * previous part stopped. Part 1 also holds `settings` and `profile`. The lists of parts 1…n put end to end are the
 * export's ({@link joinExportParts}).
 */
export type UserExportPart = Omit<UserExport, 'settings' | 'profile'> &
	Partial<Pick<UserExport, 'settings' | 'profile'>> & {
		/** From 1. */
		part: number;
		parts: number;
	};

/** A file to attach: its name and its gzip-compressed bytes. */
export interface ExportFile {
	name: string;
	data: Buffer;
}

/** One record of the export that cannot fit in a part of the limit on its own: the export is too large to send. */
export class ExportTooLargeError extends Error {
	public constructor(message: string) {
		super(message);
		this.name = 'ExportTooLargeError';
	}
}

/** A record of the export: `head` is everything but the lists (part 1 holds it); the others are one item of a list. */
type Item = { list: 'head' } | { list: ListName; value: unknown };

/**
 * The export as gzip-compressed JSON files of at most `limit` bytes each: one file when it fits, else parts
 * ({@link UserExportPart}) that each fit and can each be read alone. Rejects with {@link ExportTooLargeError} when a
 * single record cannot fit in a part, or when more than {@link MAX_EXPORT_PARTS} parts would be needed.
 *
 * @example
 * const files = await exportFiles(await memory.exportUser(userId), interaction.attachmentSizeLimit);
 * // [{ name: 'memory-export-<id>.json.gz', data }] or [{ name: 'memory-export-<id>.part-1-of-3.json.gz', data }, …]
 */
export async function exportFiles(data: UserExport, limit: number): Promise<ExportFile[]> {
	const text = JSON.stringify(data, null, 2);
	const whole = await gzip(text);
	if (whole.length <= limit) return [{ name: `memory-export-${data.userId}.json.gz`, data: whole }];

	const items: Item[] = [{ list: 'head' }, ...LISTS.flatMap((list) => (data[list] as unknown[]).map((value) => ({ list, value })))];
	const sizes = items.map((item) => Buffer.byteLength(JSON.stringify(item.list === 'head' ? headOf(data) : item.value, null, 2)));
	// Parts compress about as the whole does; aiming at 80% of the limit leaves room for the slack, and a part that
	// still does not fit is halved below.
	const perPartBytes = (limit * 0.8 * Buffer.byteLength(text)) / whole.length;
	let ranges = packed(sizes, perPartBytes);
	for (;;) {
		if (ranges.length > MAX_EXPORT_PARTS)
			throw new ExportTooLargeError(`The export needs more than ${MAX_EXPORT_PARTS} files of ${limit} bytes.`);
		const files = await Promise.all(
			ranges.map((range, index) => gzip(JSON.stringify(partOf(data, items, range, index, ranges.length), null, 2)))
		);
		const over = files.findIndex((file) => file.length > limit);
		if (over === -1)
			return files.map((file, index) => ({ name: `memory-export-${data.userId}.part-${index + 1}-of-${files.length}.json.gz`, data: file }));
		const [start, end] = ranges[over]!;
		if (end - start === 1)
			throw new ExportTooLargeError(`One record of the export takes ${files[over]!.length} bytes compressed, over ${limit}.`);
		const middle = start + Math.floor((end - start) / 2);
		ranges = [...ranges.slice(0, over), [start, middle], [middle, end], ...ranges.slice(over + 1)];
	}
}

/** Discord takes at most 10 files in one message. */
export const MAX_FILES_PER_MESSAGE = 10;

/**
 * The files in messages, in order: at most {@link MAX_FILES_PER_MESSAGE} each, and at most `limit` bytes together, as
 * the stricter reading of Discord's limit (per message rather than per file) asks.
 */
export function inMessages(files: readonly ExportFile[], limit: number): ExportFile[][] {
	const messages: ExportFile[][] = [];
	let bytes = 0;
	for (const file of files) {
		const current = messages.at(-1);
		if (current && current.length < MAX_FILES_PER_MESSAGE && bytes + file.data.length <= limit) {
			current.push(file);
			bytes += file.data.length;
		} else {
			messages.push([file]);
			bytes = file.data.length;
		}
	}
	return messages;
}

/** Puts the parts of an export back together, in any order: the export they were cut from. */
export function joinExportParts(parts: readonly UserExportPart[]): UserExport {
	const ordered = [...parts].sort((a, b) => a.part - b.part);
	const first = ordered[0];
	if (!first || ordered.some((part, index) => part.part !== index + 1 || part.parts !== ordered.length))
		throw new Error(`Expected parts 1 to ${first?.parts ?? '?'} of one export; got ${ordered.map((part) => part.part).join(', ')}.`);
	const { part: _part, parts: _parts, settings, profile, ...head } = first;
	const lists = Object.fromEntries(LISTS.map((list) => [list, ordered.flatMap((part) => part[list] as unknown[])]));
	return { ...head, settings: settings!, profile: profile ?? null, ...lists } as UserExport;
}

/** Consecutive items, `[start, end)`, whose sizes add up to about `target` each; every range holds at least one. */
function packed(sizes: readonly number[], target: number): [number, number][] {
	const ranges: [number, number][] = [];
	let start = 0;
	let bytes = 0;
	sizes.forEach((size, index) => {
		if (index > start && bytes + size > target) {
			ranges.push([start, index]);
			start = index;
			bytes = 0;
		}
		bytes += size;
	});
	ranges.push([start, sizes.length]);
	return ranges;
}

function headOf({ schemaVersion, exportedAt, userId, settings, profile }: UserExport) {
	return { schemaVersion, exportedAt, userId, settings, profile };
}

function partOf(data: UserExport, items: readonly Item[], [start, end]: [number, number], index: number, parts: number): UserExportPart {
	const slice = items.slice(start, end);
	const lists = Object.fromEntries(LISTS.map((list) => [list, slice.flatMap((item) => (item.list === list ? [item.value] : []))]));
	const { settings, profile, ...identity } = headOf(data);
	return {
		...identity,
		part: index + 1,
		parts,
		...(slice[0]?.list === 'head' ? { settings, profile } : {}),
		...(lists as Pick<UserExport, ListName>)
	};
}
