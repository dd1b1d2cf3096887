import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import type { MemoryConfig, MemoryEngine } from '../../src';

type EngineMethod = {
	[K in keyof MemoryEngine]: MemoryEngine[K] extends (...args: never[]) => unknown ? K : never;
}[keyof MemoryEngine];

/** A call a shard process rejected: the engine's error code and message. */
export class ShardCallError extends Error {
	public constructor(
		public readonly code: string | undefined,
		message: string
	) {
		super(message);
	}
}

/**
 * One shard process of a bot: a child Node.js process (run through tsx) with its own MemoryEngine on
 * the shared store, driven over IPC. Calls run in the child as they arrive, so calls sent together
 * run concurrently there, as a shard's turns do.
 */
export class ShardProcess {
	private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
	private nextId = 0;

	private constructor(
		public readonly name: string,
		private readonly child: ChildProcess
	) {
		child.on('message', (message: { id: number; ok: boolean; result?: unknown; code?: string; message?: string }) => {
			const call = this.pending.get(message.id);
			if (!call) return;
			this.pending.delete(message.id);
			if (message.ok) call.resolve(message.result);
			else call.reject(new ShardCallError(message.code, `${name}: ${message.message}`));
		});
		child.on('exit', (code) => {
			for (const call of this.pending.values()) call.reject(new Error(`${name} exited with code ${code}`));
			this.pending.clear();
		});
	}

	/** Runs `memory.<method>(...args)` in the shard process. */
	public call<K extends EngineMethod>(method: K, ...args: Parameters<MemoryEngine[K]>): Promise<Awaited<ReturnType<MemoryEngine[K]>>> {
		return this.send(method, args) as Promise<Awaited<ReturnType<MemoryEngine[K]>>>;
	}

	/** Writes the author counts the shard holds in memory, as the engine's timer does every ten minutes. */
	public flushAuthorCounts(): Promise<void> {
		return this.send('flushAuthorCounts', []) as Promise<void>;
	}

	/** Closes the engine (which writes what it holds in memory) and waits for the process to end. */
	public async stop(): Promise<void> {
		if (this.child.exitCode !== null) return;
		const exited = once(this.child, 'exit');
		this.child.send({ id: this.nextId++, method: 'exit', args: [] });
		const timer = setTimeout(() => this.child.kill('SIGKILL'), 10_000);
		await exited;
		clearTimeout(timer);
	}

	private send(method: string, args: unknown[]): Promise<unknown> {
		const id = this.nextId++;
		return new Promise((resolve, reject) => {
			this.pending.set(id, { resolve, reject });
			this.child.send({ id, method, args });
		});
	}

	/** Starts a shard process on `config` (store URL and namespace included); resolves once its engine is open. */
	public static async start(name: string, config: Partial<MemoryConfig>): Promise<ShardProcess> {
		const child = fork(join(__dirname, 'shard-process.ts'), [], {
			execArgv: ['--import', 'tsx'],
			env: { ...process.env, SHARD_NAME: name, SHARD_CONFIG: JSON.stringify(config) },
			stdio: ['ignore', 'inherit', 'inherit', 'ipc']
		});
		const [message] = (await Promise.race([
			once(child, 'message'),
			once(child, 'exit').then(([code]) => Promise.reject(new Error(`${name} exited with code ${code} before it was ready`)))
		])) as [{ ready?: boolean }];
		if (!message.ready) throw new Error(`${name} did not start`);
		return new ShardProcess(name, child);
	}
}
