import { createCipheriv, createDecipheriv, createHash, createSecretKey, type KeyObject, randomBytes } from 'node:crypto';
import { MemoryError } from '../errors';
import { isEncryptionKey, splitKeys } from '../schemas/encryptionKeys';

/** AES-256-GCM: a 12-byte nonce, a 16-byte authentication tag. */
const ALGORITHM = 'aes-256-gcm';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** What a sealed value says of itself: `<key id>.<nonce>.<tag>.<ciphertext>`, each part base64url. */
const SEALED = /^([0-9a-f]{16})\.([\w-]+)\.([\w-]+)\.([\w-]*)$/;

/** A key of MEMORY_ENCRYPTION_KEY or MEMORY_ENCRYPTION_PREVIOUS_KEYS, and the id that names it in the values it sealed. */
interface SealingKey {
	id: string;
	key: KeyObject;
}

/** Why a sealed value could not be opened. */
export type SealFailure = 'unknown key' | 'broken seal';

/**
 * Seals stored values with AES-256-GCM (`MEMORY_ENCRYPTION_KEY`) before they reach keyv, and opens them with that key or
 * one of `MEMORY_ENCRYPTION_PREVIOUS_KEYS`. Each value names the key that sealed it by an id (the first 8 bytes of the
 * key's SHA-256, which tell nothing of the key), so a store sealed over several rotations reads whole, and
 * `sapphire-memory reseal` finds what an old key still holds. The store key is the seal's associated data: a value
 * copied under another key (one member's settings under another's) does not open.
 */
export class Sealer {
	private readonly current: SealingKey;
	private readonly byId: Map<string, SealingKey>;

	private constructor(current: Buffer, previous: readonly Buffer[]) {
		this.current = sealingKey(current);
		this.byId = new Map([this.current, ...previous.map(sealingKey)].map((key) => [key.id, key]));
	}

	/** The id of the key new values are sealed with. */
	public get keyId(): string {
		return this.current.id;
	}

	/** `text` sealed for the store key `key`. */
	public seal(key: string, text: string): string {
		const nonce = randomBytes(NONCE_BYTES);
		const cipher = createCipheriv(ALGORITHM, this.current.key, nonce, { authTagLength: TAG_BYTES });
		cipher.setAAD(Buffer.from(key));
		const sealed = Buffer.concat([cipher.update(text, 'utf8'), cipher.final()]);
		return [this.current.id, nonce.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
	}

	/** The text `sealed` holds for the store key `key`, or why it cannot be opened. */
	public open(key: string, sealed: string): { text: string } | { failure: SealFailure; keyId: string | null } {
		const parts = SEALED.exec(sealed);
		if (!parts) return { failure: 'broken seal', keyId: null };
		const [, keyId, nonce, tag, text] = parts as unknown as [string, string, string, string, string];
		const sealingKey = this.byId.get(keyId);
		if (!sealingKey) return { failure: 'unknown key', keyId };
		try {
			const decipher = createDecipheriv(ALGORITHM, sealingKey.key, Buffer.from(nonce, 'base64url'), { authTagLength: TAG_BYTES });
			decipher.setAAD(Buffer.from(key));
			decipher.setAuthTag(Buffer.from(tag, 'base64url'));
			return { text: Buffer.concat([decipher.update(Buffer.from(text, 'base64url')), decipher.final()]).toString('utf8') };
		} catch {
			// A tag that does not match: the value was changed, cut, or moved from another key.
			return { failure: 'broken seal', keyId };
		}
	}

	/** Whether `sealed` was sealed with the current key (`sapphire-memory reseal` leaves those as they are). */
	public sealedWithCurrentKey(sealed: string): boolean {
		return sealed.startsWith(`${this.current.id}.`);
	}

	/** The sealer of the configured keys; null when `MEMORY_ENCRYPTION_KEY` is not set. */
	public static fromConfig(config: { encryptionKey: string | null; encryptionPreviousKeys: string | null }): Sealer | null {
		if (config.encryptionKey === null) return null;
		const previous = config.encryptionPreviousKeys === null ? [] : splitKeys(config.encryptionPreviousKeys).map(decodeKey);
		return new Sealer(decodeKey(config.encryptionKey), previous);
	}
}

function decodeKey(text: string): Buffer {
	if (!isEncryptionKey(text)) throw new MemoryError('INVALID_CONFIG', 'An encryption key must be 32 bytes, as 64 hex digits or base64.');
	return /^[\da-fA-F]{64}$/.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
}

function sealingKey(key: Buffer): SealingKey {
	return { id: createHash('sha256').update(key).digest('hex').slice(0, 16), key: createSecretKey(key) };
}
