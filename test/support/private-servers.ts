import { type ChildProcess, execFileSync, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer, Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A store server of the test's own, on a free port, that the test may stop and start again without
 * touching the shared servers on 6379 and 5432, which other test files use at the same time. It keeps
 * its data on disk, so what was stored before a stop is there after the start, as on a real server.
 */
export interface PrivateServer {
	name: 'redis' | 'postgres';
	/** Why it cannot run here, or null. */
	skipReason: string | null;
	url: string;
	/** Starts (or starts again, on the same port and data) and resolves once it answers. */
	start(): Promise<void>;
	/** Stops it the hard way: SIGKILL for Redis, an immediate shutdown (no checkpoint) for PostgreSQL. */
	kill(): Promise<void>;
	/** Suspends it (SIGSTOP): connections stay open and nothing answers. Null where not supported. */
	freeze: (() => void) | null;
	thaw: (() => void) | null;
	/** Stops it and deletes its data. */
	dispose(): Promise<void>;
}

/** A port nobody listens on right now. */
async function freePort(): Promise<number> {
	const server = createServer();
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const { port } = server.address() as { port: number };
	server.close();
	await once(server, 'close');
	return port;
}

async function until(what: string, ready: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
	const deadline = Date.now() + timeoutMs;
	while (!(await ready().catch(() => false))) {
		if (Date.now() > deadline) throw new Error(`${what} did not come up within ${timeoutMs} ms`);
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

/** Sends PING on a fresh connection; true on +PONG (not while Redis is still loading its file). */
function redisAnswers(port: number): Promise<boolean> {
	return new Promise((resolve) => {
		const socket = new Socket();
		const done = (answer: boolean) => {
			socket.destroy();
			resolve(answer);
		};
		socket.setTimeout(1000, () => done(false));
		socket.once('error', () => done(false));
		socket.once('data', (data) => done(data.toString().startsWith('+PONG')));
		socket.connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
	});
}

/** `redis-server` on a free port, with an append-only file synced at every write in a temporary directory. */
export async function privateRedis(): Promise<PrivateServer> {
	const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
	const port = await freePort();
	const dir = mkdtempSync(join(tmpdir(), 'memory-redis-'));
	let child: ChildProcess | null = null;
	const signal = (name: NodeJS.Signals) => child?.kill(name);
	const kill = async () => {
		if (!child || child.exitCode !== null) return;
		const exited = once(child, 'exit');
		child.kill('SIGCONT');
		child.kill('SIGKILL');
		await exited;
	};
	return {
		name: 'redis',
		skipReason: found.error ? 'redis-server is not on PATH (Debian: apt-get install redis-server)' : null,
		url: `redis://127.0.0.1:${port}`,
		async start() {
			child = spawn(
				'redis-server',
				[
					'--port',
					String(port),
					'--bind',
					'127.0.0.1',
					'--save',
					'',
					'--appendonly',
					'yes',
					'--appendfsync',
					'always',
					'--dir',
					dir,
					'--daemonize',
					'no'
				],
				{ stdio: 'ignore' }
			);
			await until(`redis-server on port ${port}`, () => redisAnswers(port));
		},
		kill,
		freeze: () => signal('SIGSTOP'),
		thaw: () => signal('SIGCONT'),
		async dispose() {
			await kill();
			rmSync(dir, { recursive: true, force: true });
		}
	};
}

/** Where PostgreSQL's programs are, or null. */
function postgresBin(): string | null {
	const found = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
	return found.status === 0 ? found.stdout.trim() : null;
}

/**
 * A PostgreSQL cluster of its own, made with initdb in a temporary directory and run by pg_ctl on a
 * free port, as the `postgres` user (PostgreSQL refuses to run as root), so the test must run as root.
 */
export async function privatePostgres(): Promise<PrivateServer> {
	const bin = postgresBin();
	const port = await freePort();
	const skipReason = bin
		? process.getuid?.() === 0
			? null
			: 'a private PostgreSQL cluster needs root, to run initdb and pg_ctl as the postgres user'
		: 'pg_config is not on PATH (Debian: apt-get install postgresql)';
	const dir = skipReason ? '' : mkdtempSync(join(tmpdir(), 'memory-postgres-'));
	const asPostgres = (command: string) => execFileSync('su', ['postgres', '-c', command], { stdio: 'pipe', timeout: 30_000 });
	const pgCtl = (args: string) => asPostgres(`${bin}/pg_ctl -D ${dir}/data ${args}`);
	let initialised = false;
	let running = false;
	const kill = () =>
		new Promise<void>((resolve) => {
			if (running) {
				pgCtl('-m immediate -w stop');
				running = false;
			}
			resolve();
		});
	return {
		name: 'postgres',
		skipReason,
		url: `postgres://postgres@127.0.0.1:${port}/postgres`,
		start: () =>
			new Promise<void>((resolve) => {
				if (!initialised) {
					chownSync(
						dir,
						Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim()),
						Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim())
					);
					asPostgres(`${bin}/initdb -D ${dir}/data -U postgres --auth=trust -E UTF8 --no-sync`);
					initialised = true;
				}
				// fsync off: the test kills the server, never the machine, and the operating system keeps what was written.
				pgCtl(`-o "-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off" -l ${dir}/log -w start`);
				running = true;
				resolve();
			}),
		kill,
		freeze: null,
		thaw: null,
		async dispose() {
			if (skipReason) return;
			await kill();
			rmSync(dir, { recursive: true, force: true });
		}
	};
}
