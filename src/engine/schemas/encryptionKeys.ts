// The format of the encryption keys an operator sets (`MEMORY_ENCRYPTION_KEY`, `MEMORY_ENCRYPTION_PREVIOUS_KEYS`).

/** The keys of a comma-separated list, blanks dropped. */
export function splitKeys(list: string): string[] {
	return list
		.split(',')
		.map((key) => key.trim())
		.filter((key) => key.length > 0);
}

/** Whether `text` is a 32-byte key, as 64 hex digits or base64 (standard or URL-safe, padded or not). */
export function isEncryptionKey(text: string): boolean {
	return /^[\da-fA-F]{64}$/.test(text) || (/^[A-Za-z\d+/_-]{43}=?$/.test(text) && Buffer.from(text, 'base64').length === 32);
}
