import { z } from 'zod';

/** Latest time a stored or incoming timestamp may hold (9999-12-31T23:59:59.999Z): any later one has no date. */
export const LATEST_TIME = 253_402_300_799_999;

/** Ids are Discord snowflakes in practice; anything printable and short is accepted. */
export const IdSchema = z
	.string()
	.min(1)
	.max(64)
	.regex(/^[\w.-]+$/, 'only letters, digits, "_", "." and "-"');

/** The server id stored for DM scopes and lists (`forgotten:DM:<channelId>`): no server may be named so. */
export const DM_SERVER_ID = 'DM';

/**
 * The words that end archive keys (`archive:<scope key>:head`, `…:chunk:<n>`, `…:seen:<id>`, `…:tombstones`,
 * store/keys.ts). A persona id is the optional last part of a scope key, so a persona named like one of them would
 * make its archive's keys those of the same channel's scope without a persona (`…:seen:head` is both a marker and
 * a head).
 */
export const ARCHIVE_KEY_WORDS: readonly string[] = ['head', 'chunk', 'seen', 'tombstones'];

/** A server id: any id but the one DM scopes are stored under. */
export const ServerIdSchema = IdSchema.refine((id) => id !== DM_SERVER_ID, `"${DM_SERVER_ID}" stands for direct messages and cannot name a server`);

/** A persona id: any id but the words that end archive keys. */
export const PersonaIdSchema = IdSchema.refine(
	(id) => !ARCHIVE_KEY_WORDS.includes(id),
	`a persona id cannot be ${ARCHIVE_KEY_WORDS.map((word) => `"${word}"`).join(', ')}: those words end the archive's keys`
);

/** A message id; message ids only end keys, so a ":" in one is harmless. */
export const MessageIdSchema = z
	.string()
	.min(1)
	.max(128)
	.regex(/^[\w.:-]+$/, 'only letters, digits, "_", ".", ":" and "-"');

/** Milliseconds since the epoch, bounded so that every time has a date: a later one would break each context and export that shows it. */
export const TimeSchema = z.number().finite().nonnegative().max(LATEST_TIME, 'a time in milliseconds since the epoch, at most 9999-12-31');

/** A text a host passes in: long texts are cut when stored, absurd ones refused. */
export const InputTextSchema = z.string().max(1_000_000);
