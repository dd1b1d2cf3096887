import { randomBytes } from 'node:crypto';

/**
 * Text that stays some `bytes` long when stored: random base64, which the SQLite store's compression
 * (src/engine/store/sqliteValues.ts) takes to three quarters of its length only, where repeated words would shrink to nothing.
 */
export function noise(bytes: number): string {
	return randomBytes(bytes).toString('base64');
}
