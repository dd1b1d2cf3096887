import type { Line } from './facts';

// How a fact's lines are written.

export const user = (text: string, key?: string): Line => ({ who: 'user', text, ...(key ? { key } : {}) });
export const persona = (text: string): Line => ({ who: 'persona', text });
export const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
