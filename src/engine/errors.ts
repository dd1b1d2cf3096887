/** Why an engine call failed; stable so a host can branch on it. */
export type MemoryErrorCode =
	| 'INVALID_CONFIG'
	| 'INVALID_INPUT'
	| 'STORE_UNAVAILABLE'
	| 'STORE_FAILURE'
	| 'CLOSED'
	/** The user's privacy level forbids the operation (long-term memory for PARTIAL or FULL users). */
	| 'PRIVACY_REFUSED';

/**
 * The only error the engine rejects with.
 * @example
 * try { await memory.recordTurn(turn); } catch (error) { if (error instanceof MemoryError && error.code === 'STORE_UNAVAILABLE') retryLater(); }
 */
export class MemoryError extends Error {
	/** What went wrong, to branch on (the message is for people). */
	public readonly code: MemoryErrorCode;

	public constructor(code: MemoryErrorCode, message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = 'MemoryError';
		this.code = code;
	}
}

/** True for a call that failed because the store is unreachable: the outage is told once, by the store's health, not by each such call. */
export function isOutage(error: unknown): boolean {
	return error instanceof MemoryError && error.code === 'STORE_UNAVAILABLE';
}

/**
 * Wraps whatever a store adapter threw so callers see one error type: `STORE_UNAVAILABLE` when the
 * store could not be reached (down, restarting, refusing or dropping connections), else `STORE_FAILURE`.
 */
export function storeError(operation: string, cause: unknown): MemoryError {
	if (cause instanceof MemoryError) return cause;
	const detail = cause instanceof Error ? cause.message : String(cause);
	return new MemoryError(unreachable(cause) ? 'STORE_UNAVAILABLE' : 'STORE_FAILURE', `Memory store failed during ${operation}: ${detail}`, {
		cause
	});
}

/** Socket errors of Node.js, and PostgreSQL's connection failures (class 08) and shutdowns (57P01 to 57P03). */
const UNREACHABLE_CODES = /^(ECONNREFUSED|ECONNRESET|ECONNABORTED|EPIPE|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|ENOTFOUND|EAI_AGAIN|08\w{3}|57P0[123])$/;
/** What node-redis, @keyv/redis and pg say when the server is away (their errors carry no code). */
const UNREACHABLE_MESSAGES = new RegExp(
	'^(The client is (closed|offline)|Socket closed unexpectedly|Connection timeout|Socket timeout|Redis client is not connected|' +
		'Redis timed out|LOADING |Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)'
);

function unreachable(cause: unknown): boolean {
	for (let error = cause; error instanceof Error; error = error.cause) {
		const { code } = error as { code?: unknown };
		if ((typeof code === 'string' && UNREACHABLE_CODES.test(code)) || UNREACHABLE_MESSAGES.test(error.message)) return true;
		// node-redis keeps the socket's error on a reconnect failure.
		const { socketError } = error as { socketError?: unknown };
		if (socketError instanceof Error && unreachable(socketError)) return true;
	}
	return false;
}

/** True for a call that failed because of the store: unreachable, or answering with a failure. */
export function isStoreError(error: unknown): boolean {
	return error instanceof MemoryError && (error.code === 'STORE_UNAVAILABLE' || error.code === 'STORE_FAILURE');
}
