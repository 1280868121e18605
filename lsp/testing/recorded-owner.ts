/**
 * A stand-in for a daemon that runs one language server with the orphan record, for the test
 * that kills it hard: `node recorded-owner.js STATE_FILE WORKSPACE`.
 *
 * It opens the fake server (`stubborn`: it outlives its client) with the hooks the daemon's
 * language-server pool uses (`recordingHooks`, kind LanguageServer), has it start a child that
 * leaves its group (`fake/escapee`), looks at the process tree once so the escapee is recorded
 * too, then prints `{"server":PID,"escapee":PID}` and runs until it is killed.
 */
import { ProcessRecorder, recordingHooks, sharedTreeScanner } from '../../proc/index.js';
import { LspConnection } from '../connection.js';
import { fakeServer } from './servers.js';

const [stateFile, workspace] = process.argv.slice(2);
if (stateFile === undefined || workspace === undefined) {
  process.stderr.write('usage: recorded-owner STATE_FILE WORKSPACE\n');
  process.exit(2);
}
const recorder = new ProcessRecorder(stateFile, (message) => process.stderr.write(`${message}\n`));
const options = fakeServer(workspace, 'stubborn');
const connection = new LspConnection(options, {
  processes: recordingHooks(recorder, {
    kind: 'LanguageServer',
    connectionId: 'fake-stubborn::0123456789abcdef',
    command: options.command,
  }),
});
await connection.open();
const escapee = await connection.request<number>('fake/escapee', null);
// The periodic scan would find it within DEFAULT_TREE_SCAN_MS; the test does not wait that long.
await sharedTreeScanner.scan();
process.stdout.write(`${JSON.stringify({ server: connection.pid, escapee })}\n`);
setInterval(() => undefined, 60_000);
