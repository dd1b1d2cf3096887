import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { userScopeKey } from '../support/store-inspection';

const root = join(__dirname, '../..');

describe('GIVEN the package built with `npm run build`', () => {
	beforeAll(() => {
		execFileSync('npx', ['tsup', '--silent'], { cwd: root, stdio: 'pipe' });
	}, 120_000);

	it.each(['bot.cjs', 'bot.mjs'])(
		'WHEN a %s bot imports sapphire-plugin-memory/register THEN the virtual pieces load and a turn is recorded',
		(bot) => {
			const store = `sqlite://${join(mkdtempSync(join(tmpdir(), 'memory-built-')), 'memory.sqlite')}`;
			const output = execFileSync(process.execPath, [join(__dirname, 'bots', bot)], {
				cwd: root,
				env: { ...process.env, BOT_STORE_URL: store },
				encoding: 'utf8',
				timeout: 60_000
			});
			const report = JSON.parse(output.trim().split('\n').at(-1)!);
			expect(report.commands).toContain('pluginsessioncommand');
			expect(report.listeners).toEqual(expect.arrayContaining(['PluginTurnCompleted', 'PluginMemoryError']));
			expect(report.handlers).toContain('PluginConfirmButton');
			expect(report.result).toMatchObject({ written: true, keys: [userScopeKey('1', '2', 'sol')] });
			expect(report.context).toContain(`hello from ${bot.endsWith('.cjs') ? 'cjs' : 'esm'}`);
		},
		60_000
	);
});
