const NO_PROGRESS = {
    update: () => { },
    log: (line) => void process.stderr.write(line.endsWith('\n') ? line : `${line}\n`),
    stop: () => { },
};
export async function createProgress(stream = process.stderr, enabled = stream.isTTY === true) {
    if (!enabled)
        return NO_PROGRESS;
    const { default: cliProgress } = await import('cli-progress');
    const bar = new cliProgress.SingleBar({
        stream,
        format: '{bar} {value}/{total} result files  {file}',
        hideCursor: true,
        clearOnComplete: true,
        etaBuffer: 50,
        fps: 10,
    }, cliProgress.Presets.shades_classic);
    let started = false;
    return {
        update(done, total, file) {
            const name = file.length > 60 ? `…${file.slice(-59)}` : file;
            if (!started) {
                bar.start(total ?? 0, done, { file: name });
                started = true;
                return;
            }
            if (total !== null)
                bar.setTotal(total);
            bar.update(done, { file: name });
        },
        log(line) {
            stream.write(`\r\u001b[K${line.endsWith('\n') ? line : `${line}\n`}`);
            if (started)
                bar.render();
        },
        stop() {
            if (started)
                bar.stop();
        },
    };
}
