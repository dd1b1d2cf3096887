// An ESM bot: loads the built plugin by its package name and reports what it registered.
import 'sapphire-plugin-memory/register';
import { MemoryEvents } from 'sapphire-plugin-memory';
import { SapphireClient, container } from '@sapphire/framework';
import { createRequire } from 'node:module';

createRequire(import.meta.url)('./report.cjs')({ SapphireClient, container, MemoryEvents, format: 'esm' });
