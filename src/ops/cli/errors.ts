/** A command line the CLI cannot run: exit code 2, with the usage hint. */
export class UsageError extends Error {
	public constructor(
		message: string,
		/** The command whose `--help` to point to; none for the program's. */
		public readonly command?: string
	) {
		super(message);
		this.name = 'UsageError';
	}
}

/** The process exit codes. */
export const ExitCode = { Ok: 0, Failed: 1, Usage: 2 } as const;
