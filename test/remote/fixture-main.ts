import { startFixtureServer } from './fixture-server.js';

/** The fixture remote server as a process of its own (the remote benchmark), on the port given as argument. */
const server = await startFixtureServer(Number(process.argv[2] ?? 0));
process.stdout.write(`listening ${server.url}\n`);
process.on('SIGTERM', () => void server.stop().then(() => process.exit(0)));
