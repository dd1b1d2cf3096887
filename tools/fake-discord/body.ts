import type { IncomingMessage } from 'node:http';
import type { RecordedFile } from './types';

/** A request body: its JSON (from `payload_json` when multipart) and its file parts. */
export interface ParsedBody {
	json: unknown;
	files: RecordedFile[];
}

/**
 * Reads a REST request body the way Discord does: JSON, or multipart/form-data whose `payload_json`
 * field holds the JSON and whose other file parts are uploads. The multipart parsing is the
 * platform's own (`Response#formData`).
 */
export async function readBody(request: IncomingMessage): Promise<ParsedBody> {
	const chunks: Buffer[] = [];
	for await (const chunk of request) chunks.push(chunk as Buffer);
	const raw = Buffer.concat(chunks);
	const contentType = request.headers['content-type'] ?? '';
	if (raw.length === 0) return { json: undefined, files: [] };
	if (!contentType.startsWith('multipart/form-data')) return { json: parseJson(raw.toString('utf8')), files: [] };

	const form = await new Response(raw, { headers: { 'content-type': contentType } }).formData();
	let json: unknown;
	const files: RecordedFile[] = [];
	for (const [field, value] of form.entries()) {
		if (typeof value === 'string') {
			if (field === 'payload_json') json = parseJson(value);
			continue;
		}
		files.push({ field, filename: value.name, contentType: value.type, data: Buffer.from(await value.arrayBuffer()) });
	}
	return { json, files };
}

function parseJson(text: string): unknown {
	try {
		return JSON.parse(text);
	} catch {
		return text;
	}
}
