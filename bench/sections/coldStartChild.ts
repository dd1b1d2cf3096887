import { type ColdStartArguments, measureColdStart } from './coldStartWork';

/**
 * Entry of the process that starts one channel cold (forked by coldStart.ts with --expose-gc): a bot restarted, whose
 * code V8 has not compiled yet and whose heap holds nothing of the seeding. Its one argument is a ColdStartArguments.
 */
measureColdStart(JSON.parse(process.argv[2]!) as ColdStartArguments)
	.then((row) => process.send!(row))
	.catch((error: unknown) => {
		console.error(error);
		process.exitCode = 1;
	});
