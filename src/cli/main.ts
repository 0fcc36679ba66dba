// Placeholder entry point; the CLI (commander) is built in src/cli/.
console.log('station-agent');
