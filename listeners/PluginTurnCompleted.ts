import { Listener } from '@sapphire/framework';
import { MemoryEvents } from '../src/plugin/events';
import { resolvedTurnPrivacyLevel } from '../src/plugin/privacy';
import { reportMemoryError } from '../src/plugin/report';
import type { MemoryTurn } from '../src/engine';

/** Records each turn the host reports; a failure is reported as `memoryError`, never thrown. */
export class PluginListener extends Listener<typeof MemoryEvents.TurnCompleted> {
	public constructor(context: Listener.LoaderContext) {
		super(context, { event: MemoryEvents.TurnCompleted });
	}

	public async run(turn: MemoryTurn): Promise<void> {
		try {
			const privacyLevel = await resolvedTurnPrivacyLevel(turn);
			const result = await this.container.memory.recordTurn({ ...turn, privacyLevel });
			this.container.client.emit(MemoryEvents.TurnRecorded, turn, result);
		} catch (error) {
			reportMemoryError(this.container.client, error, { phase: 'capture', userId: turn?.userId, channelId: turn?.channelId });
		}
	}
}
