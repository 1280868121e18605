/**
 * What `describe` shows of one server beside its object, the same for either kind: the
 * session's conditions, the disclosure of its config (what the approval shows), its recent
 * stderr when it is not Ready, and the events about it.
 */
import { findCondition, kindNamed, type Condition, type ServerKind } from '../../api/index.js';
import type { Session } from '../../controller/session.js';
import type { ServerDescription } from '../objects.js';

const STDERR_LINES = 20;

export function descriptionOf<O extends { status: { conditions: Condition[] } }>(
  session: Session,
  kind: ServerKind,
  name: string,
  server: O,
): Omit<ServerDescription, 'server'> & { server: O } {
  const descriptor = kindNamed(kind);
  const ready = findCondition(server.status.conditions, 'Ready')?.status === 'True';
  const desired = session.kind(kind).servers()[name];
  const object = descriptor.objectOf(name);
  return {
    server,
    sessionConditions: session.conditions,
    disclosure: desired
      ? descriptor.disclose(
          desired.config,
          desired.scope,
          'syntax' in desired ? desired.syntax : undefined,
        )
      : { fields: [], inputs: [], sends: [], warnings: [] },
    stderr: ready ? [] : session.kind(kind).stderrTail(name).slice(-STDERR_LINES),
    events: session.eventList().filter((e) => e.involvedObject === object),
  };
}
