/** 12,345 */
export function count(value: number): string {
	return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '—';
}

/** Milliseconds with 3 decimals. */
export function ms(value: number | undefined): string {
	return value !== undefined && Number.isFinite(value) ? value.toFixed(3) : '—';
}

/** `12.3×`; below 0.1, two significant digits (`0.034×`), where one decimal would show `0.0×`. */
export function times(value: number | undefined): string {
	if (value === undefined || !Number.isFinite(value)) return '—';
	return `${value > 0 && value < 0.095 ? value.toPrecision(2) : value.toFixed(1)}×`;
}

/** Mebibytes (2^20 bytes), 1 decimal. */
export function mib(bytes: number | null | undefined): string {
	return bytes !== null && bytes !== undefined && Number.isFinite(bytes) ? `${(bytes / 2 ** 20).toFixed(1)} MiB` : '—';
}

export function percent(fraction: number): string {
	return Number.isFinite(fraction) ? `${(fraction * 100).toFixed(1)}%` : '—';
}

/**
 * An aligned text table: the first column left-aligned, the others right-aligned (they hold figures).
 * Returns the title, the table and its notes as one block of text.
 */
export function table(title: string, headers: readonly string[], rows: readonly (readonly string[])[], notes: readonly string[] = []): string {
	const widths = headers.map((header, column) => Math.max(header.length, ...rows.map((row) => (row[column] ?? '').length)));
	const line = (cells: readonly string[]) =>
		cells
			.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
			.join('  ')
			.trimEnd();
	const rule = widths.map((width) => '-'.repeat(width)).join('  ');
	return [title, '', line(headers), rule, ...rows.map(line), ...(notes.length ? ['', ...notes.map((note) => `  ${note}`)] : []), ''].join('\n');
}
