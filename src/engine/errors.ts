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
	public readonly code: MemoryErrorCode;

	public constructor(code: MemoryErrorCode, message: string, options?: { cause?: unknown }) {
		super(message, options);
		this.name = 'MemoryError';
		this.code = code;
	}
}

/** Wraps whatever a store adapter threw so callers see one error type. */
export function storeError(operation: string, cause: unknown): MemoryError {
	if (cause instanceof MemoryError) return cause;
	const detail = cause instanceof Error ? cause.message : String(cause);
	return new MemoryError('STORE_FAILURE', `Memory store failed during ${operation}: ${detail}`, { cause });
}
