import { z } from 'zod';

/** Latest time a stored or incoming timestamp may hold (9999-12-31T23:59:59.999Z): any later one has no date. */
export const LATEST_TIME = 253_402_300_799_999;

/** Ids are Discord snowflakes in practice; anything printable and short is accepted. */
export const IdSchema = z
	.string()
	.min(1)
	.max(64)
	.regex(/^[\w.-]+$/, 'only letters, digits, "_", "." and "-"');

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
