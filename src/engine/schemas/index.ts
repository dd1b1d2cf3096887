export * from './account';
export * from './context';
export * from './export';
export * from './parse';
export * from './primitives';
export * from './settings';
export * from './stored';
export * from './turn';
