export * from './engine/errors';
export * from './engine/types';
export * from './engine/config';
export { MemoryEngine, type MemoryEngineOptions, type MemoryLogger, type MemoryCounters } from './engine/MemoryEngine';
export { MemoryTurnSchema, ContextRequestSchema, MAX_MESSAGE_CHARS } from './engine/validation';
export { BudgetPolicy } from './engine/budget';
export { Keys } from './engine/keys';
export { tokenCount } from './engine/tokens';
