import type { Archive } from '../archive/Archive';
import type { MemoryConfig } from '../config';
import { type StoreInventory, takeInventory } from '../records/inventory';
import type { RecordStore } from '../records/RecordStore';
import { type ChannelInspection, type ChannelQuery, ChannelQuerySchema, inspectChannel } from './inspect';
import { parseInput } from '../schemas';

/** The operators' views of the store (`sapphire-memory stats` and `inspect`): each reads the whole namespace, never on the reply path. */
export class Operators {
	public constructor(
		private readonly parts: { store: RecordStore; archive: Archive; config: MemoryConfig },
		private readonly now: () => number
	) {}

	public inventory(): Promise<StoreInventory> {
		return takeInventory(this.parts.store, this.parts.config);
	}

	public inspect(query: ChannelQuery): Promise<ChannelInspection> {
		return inspectChannel(this.parts, parseInput(ChannelQuerySchema, query, 'channel query'), this.now());
	}
}
