import type { SnowflakeGenerator } from './snowflakes';
import type { ApiObject, RecordedFile } from './types';

/**
 * Files uploaded with messages. An upload becomes an attachment object whose `url` the fake serves
 * (`GET /attachments/:id/:filename`), so a test can fetch what the bot sent like a user would.
 */
export class AttachmentStore {
	readonly #files = new Map<string, RecordedFile>();
	readonly #snowflakes: SnowflakeGenerator;
	readonly #origin: () => string;

	public constructor(snowflakes: SnowflakeGenerator, origin: () => string) {
		this.#snowflakes = snowflakes;
		this.#origin = origin;
	}

	/**
	 * The attachments a create or edit leaves on a message. discord.js lists them in `attachments`:
	 * an upload by its index (its file is the `files[index]` part), a kept attachment by its id.
	 */
	public resolve(listed: unknown, files: readonly RecordedFile[], existing: readonly ApiObject[] = []): ApiObject[] {
		if (!Array.isArray(listed)) return files.length ? files.map((file) => this.#store(file, {})) : [...existing];
		return (listed as ApiObject[]).flatMap((entry) => {
			const upload = files.find((file) => file.field === `files[${String(entry.id)}]`);
			if (upload) return [this.#store(upload, entry)];
			const kept = existing.find((attachment) => attachment.id === String(entry.id));
			return kept ? [kept] : [];
		});
	}

	/** An uploaded file by attachment id. */
	public file(id: string): RecordedFile | undefined {
		return this.#files.get(id);
	}

	#store(file: RecordedFile, entry: ApiObject): ApiObject {
		const id = this.#snowflakes.next();
		this.#files.set(id, file);
		const filename = String(entry.filename ?? file.filename);
		const url = `${this.#origin()}/attachments/${id}/${encodeURIComponent(filename)}`;
		return {
			id,
			filename,
			size: file.data.length,
			url,
			proxy_url: url,
			content_type: file.contentType,
			...(entry.description === undefined ? {} : { description: entry.description })
		};
	}
}
