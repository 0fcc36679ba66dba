export const COMMANDS = [
    { name: 'run', load: async () => (await import('./run.js')).registerRunCommand },
    { name: 'status', load: async () => (await import('./status.js')).registerStatusCommand },
    { name: 'queue', load: async () => (await import('./queue.js')).registerQueueCommand },
    { name: 'config', load: async () => (await import('./config.js')).registerConfigCommand },
    { name: 'demo', load: async () => (await import('./demo.js')).registerDemoCommand },
    { name: 'ingest', load: async () => (await import('./ingest.js')).registerIngestCommand },
    { name: 'api', load: async () => (await import('./api.js')).registerApiCommand },
    { name: 'watch', load: async () => (await import('./watch.js')).registerWatchCommand },
    { name: 'doctor', load: async () => (await import('./doctor.js')).registerDoctorCommand },
    { name: 'emulator', load: async () => (await import('./emulator.js')).registerEmulatorCommand },
];
export async function commandsFor(argv) {
    const named = COMMANDS.find((c) => c.name === argv[2]);
    return Promise.all((named ? [named] : COMMANDS).map((c) => c.load()));
}
