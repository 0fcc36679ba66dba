import { DEMO_PACKAGE, importDevPackage } from './support/dev-packages.js';
import { examples, integerIn, jsonOption } from './support/options.js';
export function registerDemoCommand(program) {
    program
        .command('demo')
        .description('run the whole pipeline against a local service with generated sample recordings, then show what was uploaded')
        .addOption(jsonOption())
        .option('--keep', 'keep the temporary folder (samples, queue, config, agent.log) and print where it is')
        .option('--timeout <seconds>', 'how long the uploads may take', integerIn(5, 3_600), 60)
        .addHelpText('after', `
Starts the local service with a generated station token, writes six synthesised
recordings with their analyzer results (analyzerpi JSON, Raven selection table,
CSV, detections sidecar) into a temporary folder, runs the agent as
'station-agent run' would until everything is uploaded, and prints the species,
detections by certainty and soundscapes the service then holds. Everything it
started is stopped and its folder removed (unless --keep). Progress goes to
stderr, the table (or the JSON document) to stdout.
${examples('station-agent demo', 'station-agent demo --keep', 'station-agent demo --json | jq .service.species')}`)
        .action(async (flags) => {
        const [{ runDemo, renderSummary }, { createOutput }] = await Promise.all([
            importDevPackage(DEMO_PACKAGE, 'demo'),
            import('../format/output.js'),
        ]);
        const out = createOutput();
        const abort = new AbortController();
        const onSignal = () => abort.abort();
        process.once('SIGINT', onSignal);
        process.once('SIGTERM', onSignal);
        try {
            const result = await runDemo({
                keep: flags.keep === true,
                timeoutMs: flags.timeout * 1000,
                signal: abort.signal,
                say: (line) => out.note(line),
            });
            if (flags.json)
                out.json(result);
            else {
                out.line();
                out.lines(renderSummary(result.service, out.style));
            }
        }
        finally {
            process.off('SIGINT', onSignal);
            process.off('SIGTERM', onSignal);
        }
    });
}
