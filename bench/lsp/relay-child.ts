/**
 * The lsp figure's bare relay: `node relay-child.js COMMAND ARGS...` starts COMMAND and copies
 * bytes between its own stdin/stdout and the child's, nothing else — a process hop with no
 * protocol in it. Two of these in front of a language server give a direct client the same
 * number of processes on its path as an agent through mcpctl has (serve, the daemon), so the
 * difference between that client and mcpctl is what mcpctl's own code costs per request.
 *
 * Guarantees: the child's stderr is the relay's; the relay ends with the child (its exit code)
 * and closes the child's stdin when its own ends; it stays in the child's process group, so the
 * client's group kill ends both.
 */
import { spawn } from 'node:child_process';

const [command, ...args] = process.argv.slice(2);
if (!command) throw new Error('usage: relay-child.js COMMAND [ARGS...]');
const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'inherit'] });
process.stdin.pipe(child.stdin);
child.stdout.pipe(process.stdout);
child.once('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
