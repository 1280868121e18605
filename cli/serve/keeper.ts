/**
 * The agent's MCP session in `mcpctl serve`, kept across daemons: a pipe between the agent's
 * stdio and its gateway in the daemon that, when the daemon's socket closes under it, keeps
 * the agent's side open, brings a daemon back and restores the session there (issue 25;
 * README "When the daemon restarts", cli/rpc/PROTOCOL.md "When the daemon goes away").
 *
 * Why one file of about 600 lines: what is left here is the state machine itself (Phase and
 * its transitions: connect, close, bring back, restore, finish) and the two pipes through it.
 * Every transition reads and writes the same phase, current gateway and stdin/stdout flow, so
 * a further split would hand each part the whole keeper. The parts that stand alone are their
 * own modules: the ledger of calls in flight (in-flight.ts), the lines waiting for a gateway
 * (waiting-lines.ts), the gateway's requests to the agent (gateway-asks.ts), the lines serve
 * writes itself (keeper-lines.ts) and what the agent set up (agent-record.ts).
 *
 * Guarantees:
 * - While a gateway is connected every line passes on as it came (a view of the bytes read,
 *   never re-encoded), after a look at its top-level keys (mcp-peek.ts); only the lines below
 *   are rewritten, answered here or dropped. At most one MCP message of each direction is held
 *   (line-splitter.ts), and lines waiting for a daemon are bounded (MAX_QUEUED_BYTES,
 *   waiting-lines.ts: past it the agent's input is not read until they are sent or answered),
 *   as are the lines of sent request kept until another line follows it (MAX_RESEND_BYTES,
 *   in-flight.ts).
 * - No line longer than MAX_AGENT_STDIO_MESSAGE_BYTES reaches the agent (its MCP SDK would drop
 *   the connection, and with it every server): such an answer becomes the size error (-32005)
 *   for its request, such a request of the gateway's is answered with it, anything else is
 *   dropped; each is logged (agent-message-size.ts; the daemon's gateway sends none).
 * - The agent's requests in flight when the socket closes, that its daemon may have run, are
 *   answered at once with an MCP error (-32000) saying the daemon went away and the call may
 *   or may not have run: never a hang, never a made-up success. (A daemon that said it stops
 *   may still answer some; its errors then are replaced by that one.) (The agent's
 *   `initialize` is the exception while it has no answer yet: it is sent again, and answered
 *   by the new gateway.)
 * - A request its daemon provably never ran waits for the next daemon instead, and runs there
 *   once (issue 31). A SIGKILLed daemon's sockets close one by one as the kernel tears it down
 *   (the dying process can be preempted between two), so another agent may see the death and
 *   call again while this socket still takes bytes that nobody will read: the write succeeds,
 *   then the socket closes, and only the daemon could say it never read them. Provably means:
 *   - its line never reached the kernel whole: the socket was closed or ended already, or the
 *     write failed while it was the only one under way (a failed write of several lines may
 *     have delivered the first ones, so those are not resent; lines are never corked); or
 *   - it was the last line written to the connection, and the connection ended in a reset
 *     (ECONNRESET on read): Linux resets a Unix stream socket when its peer closes with bytes
 *     of ours still queued unread, and those are the last bytes written, so that line's newline
 *     never reached the daemon's code (which acts on whole lines only). A dying daemon's
 *     sockets close with such a reset for every line written after its death; a daemon that
 *     had read everything closes with a plain end, which proves nothing.
 *   Such a line is kept while it is the last one written, at most MAX_RESEND_BYTES (a longer
 *   one is failed as above). Everything else is "may or may not have run": serve never sends a
 *   request twice. (It costs nothing per call: no word of the daemon's is needed.)
 * - Then, unless the daemon said to wait for the agent's next request (a `mcpctl stop`) or
 *   only this connection ended (the same daemon answers: serve exits 1, as before), a daemon is
 *   brought back (`reopen`: started when none answers; serves racing end up on one) and the
 *   session restored: the agent's `initialize` replayed with the same params (its answer is
 *   taken here, never shown to the agent), `notifications/initialized`, the logging level and
 *   the resource subscriptions (agent-record.ts); then the agent is sent `tools/`, `prompts/`
 *   and `resources/list_changed`. The agent never sees a second `initialize`.
 * - A request that comes while no gateway is connected waits for one at most `waitMs`, then is
 *   answered with an error naming the daemon's log; a failed return answers every waiting
 *   request so at once, and the next request tries again.
 * - Requests the gateway sent the agent (sampling, elicitation, roots/list) belong to that
 *   gateway: once it is gone, the agent's answers to them are dropped, never handed to the
 *   next gateway, which never asked. From the second gateway on, their ids are renamed
 *   (`"mcpctl-<n>-<k>"`) on the way to the agent and back, so no id of a gone gateway can be
 *   taken for one of the new gateway's.
 * - A task the agent created on a gateway that went away is answered here (`tasks/get`,
 *   `tasks/result`, `tasks/cancel`: -32602, saying its state was lost in the restart).
 * - It ends with 0 when stdin ends (the daemon's close awaited for at most STDIN_END_GRACE_MS)
 *   or on SIGINT/SIGTERM; with 1 when the daemon ended this connection while it runs on.
 */
import type { Socket } from 'node:net';
import type { Readable, Writable } from 'node:stream';
import {
  LIMIT_EXCEEDED_CODE,
  MAX_AGENT_STDIO_MESSAGE_BYTES,
  MAX_MESSAGE_BYTES,
} from '../../api/limits.js';
import { answerTooLargeMessage, droppedText } from '../agent-message-size.js';
import { messageOf } from '../errors.js';
import { DAEMON_STOPPING, RpcCodes, type ReconnectMode } from '../rpc/protocol.js';
import { AgentRecord } from './agent-record.js';
import type { OpenedGateway } from './gateway-open.js';
import { GatewayAsks } from './gateway-asks.js';
import { forgetLine, InFlightCalls, neverRan, type AgentCall } from './in-flight.js';
import {
  errorLine,
  errorOf,
  methodAndParams,
  requestIdOf,
  stopNoticeOf,
  withId,
} from './keeper-lines.js';
import { LineSplitter } from './line-splitter.js';
import { peekMessage } from './mcp-peek.js';
import { WaitingLines, type Queued } from './waiting-lines.js';

/** How long serve waits for the daemon to close after stdin ended. */
const STDIN_END_GRACE_MS = 1000;
/** MCP's SDK code for a closed connection: what a call cut off by a lost daemon gets. */
export const DAEMON_GONE_CODE = -32000;

/** A connection to a daemon whose gateway is open for this agent. */
export interface Link {
  readonly socket: Socket;
  readonly opened: OpenedGateway;
}

export interface KeeperOptions {
  readonly stdin: Readable;
  readonly stdout: Writable;
  readonly log: (message: string) => void;
  readonly socketPath: string;
  /** The daemon's log file, named in every message about the daemon. */
  readonly logFile: string;
  /** Connects to the daemon (starting one when none answers) and opens the gateway again. */
  readonly reopen: () => Promise<Link>;
  /** The pid of the daemon answering at the socket now, if any does. */
  readonly daemonPid: () => Promise<number | undefined>;
  /** How long a request waits for a daemon to come back (default 15 s). */
  readonly waitMs?: number;
  /** Whether SIGINT/SIGTERM end serve (default true; tests leave the process's handlers). */
  readonly handleSignals?: boolean;
}

type Phase =
  /** A gateway is connected and restored: lines flow. */
  | 'open'
  /** A gateway is connected; its replayed `initialize` has not been answered yet. */
  | 'restoring'
  /** No gateway: one is being brought back (or the last one's end is being looked into). */
  | 'down'
  /** No gateway, and none is being brought back: the agent's next request does. */
  | 'idle'
  | 'ended';

interface Current {
  readonly link: Link;
  readonly gen: number;
  readonly framer: LineSplitter;
  /** Inside a line too long to hold, which is dropped piece by piece. */
  dropping?: boolean;
  /** What the daemon said before it closed, if it said anything (DAEMON_STOPPING). */
  notice?: { reconnect: ReconnectMode; reason: string };
  /** The request whose line was the last one written to this gateway, if the last was one. */
  last?: AgentCall;
  /** The connection ended in a reset: the daemon closed with bytes of ours unread (Linux). */
  reset?: boolean;
}

export class SessionKeeper {
  readonly #o: KeeperOptions;
  readonly #waitMs: number;
  readonly #record = new AgentRecord();
  readonly #agentFramer: LineSplitter;
  #phase: Phase = 'down';
  #current: Current | undefined;
  #gen = 0;
  readonly #inFlight = new InFlightCalls();
  readonly #asks = new GatewayAsks();
  /** Ids of serve's own requests on the current gateway (the restore): their answers stay here. */
  readonly #ownIds = new Set<string>();
  #restoreInitId: string | undefined;
  readonly #waiting: WaitingLines;
  #attempting = false;
  #socketBlocked = false;
  /** The agent does not read: the gateway is not read either until it does. */
  #stdoutBlocked = false;
  #stdinEnded = false;
  #endTimer: NodeJS.Timeout | undefined;
  #resolve: (code: number) => void = () => undefined;

  constructor(o: KeeperOptions) {
    this.#o = o;
    this.#waitMs = o.waitMs ?? 15_000;
    this.#waiting = new WaitingLines({
      answer: (id, message) => this.#answerAgent(id, DAEMON_GONE_CODE, message),
      changed: () => this.#flowStdin(),
      expired: `the mcpctl daemon did not come back within ${this.#waitMs / 1000} s (it is being started; see its log ${o.logFile}); try again in a moment`,
    });
    this.#agentFramer = new LineSplitter(MAX_MESSAGE_BYTES + 1, (line, whole) =>
      this.#fromAgent(line, whole),
    );
  }

  /** Pipes over `first` (its gateway just opened) until the agent or a signal ends it. */
  run(first: Link): Promise<number> {
    return new Promise<number>((resolve) => {
      this.#resolve = resolve;
      if (this.#o.handleSignals ?? true) {
        process.once('SIGINT', this.#onSignal);
        process.once('SIGTERM', this.#onSignal);
      }
      this.#o.stdin.on('data', this.#onStdinData);
      this.#o.stdin.once('end', this.#onStdinEnd);
      this.#o.stdin.once('close', this.#onStdinEnd);
      this.#phase = 'open';
      this.#connect(first);
    });
  }

  // ---- the agent's side -------------------------------------------------------------------

  readonly #onStdinData = (chunk: Buffer | string) => {
    // Not corked: each request is a write of its own, so its fate is known (Sending).
    this.#agentFramer.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  };

  readonly #onStdinEnd = () => {
    if (this.#stdinEnded) return;
    this.#stdinEnded = true;
    const current = this.#current;
    if (!current || this.#phase === 'ended') return this.#finish(0);
    current.link.socket.end(); // The agent went away: so does its gateway.
    this.#endTimer = setTimeout(() => this.#finish(0), STDIN_END_GRACE_MS);
  };

  readonly #onSignal = () => this.#finish(0);

  #fromAgent(line: Buffer, whole: boolean): void {
    if (!whole) {
      // Past the message limit: passed on untouched (the daemon refuses it), never held.
      if (this.#phase === 'open') this.#toGateway(line);
      return;
    }
    const peek = peekMessage(line, 0, line.length - 1);
    if (peek?.response) return this.#agentAnswer(peek.id, line);
    if (peek?.method !== undefined) {
      if (peek.id !== undefined) return this.#agentRequest(peek.method, peek.id, line);
      return this.#agentNotification(peek.method, line);
    }
    // Not a message serve can read: the gateway answers it as it answers any such line.
    if (this.#phase === 'open') this.#toGateway(line);
    else this.#waiting.add({ line });
  }

  #agentRequest(method: string, id: string, line: Buffer): void {
    const { lostTask } = this.#record.noteRequest(method, line);
    if (lostTask !== undefined) {
      this.#answerAgent(
        id,
        RpcCodes.InvalidParams,
        `task ${JSON.stringify(lostTask)} was lost: the mcpctl daemon restarted after it was created, and its state is gone (a new daemon reaps the old one's server processes); call the tool again`,
      );
      return;
    }
    const call: AgentCall = {
      method,
      task: method === 'tools/call' && line.includes('"task"'),
      ...(method === 'initialize' ? { line } : {}),
    };
    if (this.#phase === 'open') return this.#sendRequest(id, call, line);
    this.#waiting.add({ line, request: { id, call, until: Date.now() + this.#waitMs } });
    this.#bringBack();
  }

  #agentNotification(method: string, line: Buffer): void {
    if (method === 'notifications/initialized') {
      this.#record.noteInitialized();
      if (this.#phase === 'open') this.#toGateway(line);
      // Before its initialize was answered, it follows that initialize; after, the replay says it.
      else if (!this.#record.initializeResult) this.#waiting.add({ line });
      return;
    }
    if (method === 'notifications/cancelled') {
      const cancelled = requestIdOf(line);
      if (cancelled !== undefined) {
        // The gateway does not answer a request the agent cancelled.
        this.#inFlight.settle(cancelled);
        if (this.#phase !== 'open') this.#waiting.remove(cancelled);
      }
    }
    // Any other notification concerns the gateway that is gone (progress of its requests,
    // roots that the next one asks for itself): dropped while none is connected.
    if (this.#phase === 'open') this.#toGateway(line);
  }

  #agentAnswer(id: string | undefined, line: Buffer): void {
    const ask = id === undefined ? undefined : this.#asks.answered(id);
    if (ask && id !== undefined) {
      // Only the gateway that asked may have the answer, under its own id.
      if (ask.gen !== this.#gen || this.#phase !== 'open') return;
      this.#toGateway(ask.id === id ? line : withId(line, ask.id, 'id'));
      return;
    }
    // An answer serve knows nothing of: the gateway's business, as straight behind it.
    if (this.#phase === 'open') this.#toGateway(line);
  }

  /** Sends a request of the agent's to the current gateway, knowing what becomes of it. */
  #sendRequest(id: string, call: AgentCall, line: Buffer): void {
    const current = this.#current;
    if (!current)
      return this.#waiting.add({ line, request: { id, call, until: Date.now() + this.#waitMs } });
    const sending = this.#inFlight.sent(id, call, current.gen, line);
    this.#toGateway(line, (fate) => (sending.state = fate), call);
  }

  /**
   * Writes `line` to the current gateway. `fate` (for requests) hears whether one whole copy
   * surely never reached the daemon (`unsent`) or it is in the kernel (`written`); `call` is
   * the request the line is (the last line written, until another follows).
   */
  #toGateway(line: Buffer, fate?: (state: 'unsent' | 'written') => void, call?: AgentCall): void {
    const current = this.#current;
    const socket = current?.link.socket;
    if (!current || !socket || socket.destroyed || socket.writableEnded) return fate?.('unsent');
    // Only the last line can be proven unread (a reset): the one before it is kept no longer.
    if (current.last && current.last !== call) forgetLine(current.last);
    current.last = call;
    // Alone: not queued behind another write, so no write of several lines fails with it.
    const alone = socket.writableLength === 0 && socket.writableCorked === 0;
    const done = fate
      ? (err?: NodeJS.ErrnoException | null) => {
          const code = err?.code;
          // Never handed to the kernel (the stream had ended or was destroyed), or a failed
          // write of this line alone: its newline never arrived, so no daemon read it whole.
          const never = code === 'ERR_STREAM_WRITE_AFTER_END' || code === 'ERR_STREAM_DESTROYED';
          fate(!err ? 'written' : never || alone ? 'unsent' : 'written');
        }
      : undefined;
    if (!socket.write(line, done) && !this.#socketBlocked) {
      this.#socketBlocked = true;
      this.#flowStdin();
      socket.once('drain', () => {
        this.#socketBlocked = false;
        this.#flowStdin();
      });
    }
  }

  /** An error answer of serve's own to the agent's request `id` (the id's JSON text). */
  #answerAgent(id: string, code: number, message: string): void {
    this.#toAgent(errorLine(id, code, message));
  }

  #toAgent(line: Buffer): boolean {
    return this.#o.stdout.write(line);
  }

  // ---- the gateway's side -----------------------------------------------------------------

  #connect(link: Link): void {
    this.#gen += 1;
    const gen = this.#gen;
    const framer = new LineSplitter(MAX_MESSAGE_BYTES + 1, (line, whole) =>
      this.#fromGateway(current, line, whole),
    );
    const current: Current = { link, gen, framer };
    this.#current = current;
    this.#socketBlocked = false;
    const { socket } = link;
    // 'close' follows and says what happened; a reset on read says some of ours went unread.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ECONNRESET' && err.syscall === 'read') current.reset = true;
    });
    socket.on('data', (chunk: Buffer) => {
      if (this.#current !== current) return;
      this.#o.stdout.cork();
      framer.push(chunk);
      this.#o.stdout.uncork();
    });
    socket.once('close', () => this.#onClose(current));
    if (link.opened.rest.length > 0) framer.push(link.opened.rest);
    if (!this.#stdoutBlocked) socket.resume();
  }

  #fromGateway(current: Current, line: Buffer, whole: boolean): void {
    if (this.#current !== current) return;
    if (!whole) return this.#dropPiece(current, line);
    if (line.length - 1 > MAX_AGENT_STDIO_MESSAGE_BYTES) return this.#oversized(line);
    const peek = peekMessage(line, 0, line.length - 1);
    if (peek?.response) {
      const id = peek.id;
      if (id !== undefined && this.#ownIds.delete(id)) return this.#ownAnswer(id, line);
      const call = id === undefined ? undefined : this.#inFlight.get(id);
      if (call && id !== undefined) {
        // A stopping daemon fails the calls it cuts off with errors of its servers' closing;
        // serve's own answer at the close says what happened.
        if (current.notice && errorOf(line) !== undefined) return;
        this.#inFlight.settle(id);
        if (call.method === 'initialize') this.#record.noteInitializeAnswer(line);
        else if (call.task && line.includes('"taskId"')) this.#record.noteTaskAnswer(line);
      }
      return this.#out(current, line);
    }
    if (peek?.method !== undefined) {
      if (peek.id !== undefined) return this.#gatewayAsks(current, peek.id, line);
      if (peek.method === DAEMON_STOPPING) {
        current.notice = stopNoticeOf(line);
        return;
      }
      if (peek.method === 'notifications/cancelled') {
        // The gateway gave up on one of its requests: under the id the agent knows it by.
        const cancelled = requestIdOf(line);
        const visible = this.#asks.cancelled(current.gen, cancelled);
        if (visible !== undefined)
          return this.#out(
            current,
            visible === cancelled ? line : withId(line, visible, 'requestId'),
          );
      }
    }
    this.#out(current, line);
  }

  /**
   * A line of the gateway's that the agent could not read (its MCP SDK drops the connection,
   * and with it every server, on one longer than MAX_AGENT_STDIO_MESSAGE_BYTES): an answer
   * becomes the size error for its request, a request of the gateway's is answered so, anything
   * else is dropped. A daemon of this mcpctl never sends one; an older one may.
   */
  #oversized(line: Buffer): void {
    const bytes = line.length - 1;
    const max = MAX_AGENT_STDIO_MESSAGE_BYTES;
    const peek = peekMessage(line, 0, bytes);
    const id = peek?.id;
    if (peek?.response && id !== undefined) {
      const error = errorLine(id, LIMIT_EXCEEDED_CODE, answerTooLargeMessage(bytes, max));
      if (this.#ownIds.delete(id)) return this.#ownAnswer(id, error);
      const method = this.#inFlight.settle(id)?.method ?? 'request';
      this.#o.log(
        `not passed to the agent: ${droppedText(`the answer to its ${method}`, bytes, max)} (more than an agent reads in one message); it gets the size error instead`,
      );
      return void this.#toAgent(error);
    }
    const what = peek?.method ?? 'a line';
    this.#o.log(
      `not passed to the agent: ${droppedText(what, bytes, max)} (more than an agent reads in one message)`,
    );
    if (peek?.method !== undefined && id !== undefined)
      this.#toGateway(
        errorLine(
          id,
          LIMIT_EXCEEDED_CODE,
          `mcpctl serve did not pass this request on: ${droppedText(what, bytes, max)}, more than the agent reads in one message`,
        ),
      );
  }

  /** A piece of a line longer than serve holds (never sent by a daemon): dropped, logged once. */
  #dropPiece(current: Current, piece: Buffer): void {
    if (!current.dropping)
      this.#o.log(
        `not passed to the agent: a line of the daemon's longer than ${MAX_MESSAGE_BYTES} bytes`,
      );
    current.dropping = piece[piece.length - 1] !== 0x0a;
  }

  /** A request of the gateway's to the agent (sampling, elicitation, roots/list, ping). */
  #gatewayAsks(current: Current, id: string, line: Buffer): void {
    const visible = this.#asks.add(current.gen, id);
    this.#out(current, visible === id ? line : withId(line, visible, 'id'));
  }

  /** A line for the agent; while stdout is full, nothing more is read from the daemon. */
  #out(current: Current, line: Buffer): void {
    if (this.#toAgent(line) || this.#stdoutBlocked) return;
    this.#stdoutBlocked = true;
    current.link.socket.pause();
    this.#o.stdout.once('drain', () => {
      this.#stdoutBlocked = false;
      if (this.#current) this.#current.link.socket.resume();
    });
  }

  #onClose(current: Current): void {
    if (this.#current !== current) return;
    this.#current = undefined;
    current.framer.reset();
    if (this.#stdinEnded || this.#phase === 'ended') return this.#finish(0);
    this.#phase = 'down';
    // Writes waiting for that socket to drain are gone with it: read the agent again.
    this.#socketBlocked = false;
    this.#flowStdin();
    this.#ownIds.clear();
    this.#restoreInitId = undefined;
    this.#record.loseTasks();
    this.#failInFlight(current);
    const notice = current.notice;
    if (notice) {
      if (notice.reconnect === 'now') {
        this.#o.log(
          `the mcpctl daemon at ${this.#o.socketPath} stopped (${notice.reason}); bringing one back and restoring this agent's session`,
        );
        return this.#bringBack();
      }
      this.#o.log(
        `the mcpctl daemon at ${this.#o.socketPath} stopped (${notice.reason}); this agent's session waits: its next request starts a daemon and restores the session there`,
      );
      this.#phase = 'idle';
      if (this.#waiting.length > 0) this.#bringBack();
      return;
    }
    void this.#o.daemonPid().then((pid) => {
      if (this.#phase === 'ended') return;
      // The daemon we were on still answers: it ended this connection on purpose.
      if (pid !== undefined && pid === current.link.opened.pid && !this.#current) {
        this.#o.log(
          `the mcpctl daemon at ${this.#o.socketPath} ended this connection (see ${this.#o.logFile}); restart this MCP server to reconnect`,
        );
        return this.#finish(1);
      }
      this.#o.log(
        `the mcpctl daemon at ${this.#o.socketPath} went away (see ${this.#o.logFile}); bringing one back and restoring this agent's session`,
      );
      this.#bringBack();
    });
  }

  /**
   * Every call the gone gateway did not answer gets its error now, but those its daemon never
   * ran, which wait for the next one (and an unanswered initialize, which is sent again).
   */
  #failInFlight(current: Current): void {
    const again: Queued[] = [];
    for (const [id, call] of this.#inFlight.takeAll()) {
      const line = call.line;
      const initialize = call.method === 'initialize' && !this.#record.initializeResult;
      if (line && (initialize || neverRan(current, call))) {
        forgetLine(call);
        again.push({ line, request: { id, call, until: Date.now() + this.#waitMs } });
        continue;
      }
      forgetLine(call);
      this.#answerAgent(
        id,
        DAEMON_GONE_CODE,
        `the mcpctl daemon went away while this ${call.method} request was in flight (it crashed, was killed, stopped or restarted): it may or may not have run on its server, so check before repeating anything that changes state. mcpctl restores this session on a new daemon; see ${this.#o.logFile}`,
      );
    }
    const resent = again.filter((q) => q.request?.call.method !== 'initialize').length;
    if (resent > 0)
      this.#o.log(
        `the daemon went away before it took ${resent === 1 ? '1 request' : `${resent} requests`} of this agent's; ${resent === 1 ? 'it waits' : 'they wait'} for the next daemon`,
      );
    if (again.length > 0) this.#waiting.prepend(again);
  }

  // ---- bringing a daemon back -------------------------------------------------------------

  #bringBack(): void {
    if (this.#attempting || this.#current || this.#phase === 'ended') return;
    this.#attempting = true;
    this.#phase = 'down';
    this.#o.reopen().then(
      (link) => {
        this.#attempting = false;
        if (this.#phase === 'ended' || this.#stdinEnded) {
          link.socket.destroy();
          if (this.#stdinEnded) this.#finish(0);
          return;
        }
        this.#connect(link);
        this.#restore();
      },
      (err: unknown) => {
        this.#attempting = false;
        if (this.#phase === 'ended') return;
        const why = messageOf(err);
        this.#o.log(`${why}; this agent's session waits: its next request tries again`);
        this.#phase = 'idle';
        this.#waiting.failAll(
          `mcpctl serve could not bring its daemon back: ${why}. This session stays open; the next request tries again`,
        );
      },
    );
  }

  /** Replays the agent's session on the gateway just connected. */
  #restore(): void {
    const params = this.#record.initializeParams;
    if (!this.#record.initializeResult || !params) return this.#restored(false);
    this.#phase = 'restoring';
    const id = JSON.stringify(`mcpctl-restore-${this.#gen}-initialize`);
    this.#restoreInitId = id;
    this.#sendOwn(id, 'initialize', params);
  }

  #sendOwn(id: string, method: string, params: Record<string, unknown>): void {
    this.#ownIds.add(id);
    this.#toGateway(
      Buffer.from(`{"jsonrpc":"2.0","id":${id},${methodAndParams(method, params)}}\n`),
    );
  }

  #ownAnswer(id: string, line: Buffer): void {
    const error = errorOf(line);
    if (id !== this.#restoreInitId) {
      if (error) this.#o.log(`restoring this agent's session: ${error}`);
      return;
    }
    this.#restoreInitId = undefined;
    if (error)
      this.#o.log(`the new gateway refused this agent's initialize: ${error}; going on without it`);
    this.#restored(true);
  }

  /** The gateway knows the agent again: the rest of its state, then the waiting lines. */
  #restored(replayed: boolean): void {
    const gen = this.#gen;
    if (replayed) {
      if (this.#record.initialized)
        this.#toGateway(Buffer.from('{"jsonrpc":"2.0","method":"notifications/initialized"}\n'));
      let n = 0;
      for (const { method, params } of this.#record.restoreRequests())
        this.#sendOwn(JSON.stringify(`mcpctl-restore-${gen}-${(n += 1)}`), method, params);
    }
    this.#phase = 'open';
    const queued = this.#waiting.takeAll();
    // Not corked: each request is a write of its own (see #sendRequest).
    for (const q of queued) {
      if (q.request) this.#sendRequest(q.request.id, q.request.call, q.line);
      else this.#toGateway(q.line);
    }
    this.#flowStdin();
    if (replayed)
      for (const what of ['tools', 'prompts', 'resources'])
        this.#toAgent(
          Buffer.from(`{"jsonrpc":"2.0","method":"notifications/${what}/list_changed"}\n`),
        );
  }

  /** Reads stdin unless the daemon is not taking it, or too much of it waits for one. */
  #flowStdin(): void {
    if (this.#phase === 'ended') return;
    if (this.#socketBlocked || this.#waiting.full) this.#o.stdin.pause();
    else this.#o.stdin.resume();
  }

  #finish(code: number): void {
    if (this.#phase === 'ended') return;
    this.#phase = 'ended';
    clearTimeout(this.#endTimer);
    this.#waiting.stop();
    process.off('SIGINT', this.#onSignal);
    process.off('SIGTERM', this.#onSignal);
    this.#o.stdin.off('data', this.#onStdinData);
    this.#o.stdin.off('end', this.#onStdinEnd);
    this.#o.stdin.off('close', this.#onStdinEnd);
    this.#o.stdin.pause();
    const current = this.#current;
    this.#current = undefined;
    current?.link.socket.destroy();
    this.#resolve(code);
  }
}
