/**
 * The baseline of the tool-gap figures: the original `restartMcpServers` strategy, rebuilt
 * honestly on mcpctl's own parts. On every config change it drops every tool, closes every
 * connection, and then discovers every configured server again, in parallel.
 *
 * Same pool type, same connector, same servers, same informer as mcpctl's side of the figure;
 * tickets come from reconcilers/admission.ts like everywhere else. Only the strategy differs:
 * restart-all instead of a per-server reconcile.
 */
import { daemonEnvironment, MCP_SERVER } from '../api/index.js';
import type { DesiredState } from '../informers/types.js';
import type { Lease, Pool } from '../pool/types.js';
import { admit, type ApprovalView } from '../reconcilers/admission.js';
import { Registry } from '../reconcilers/registry.js';

/** Every server of the bench comes from user settings, which are never gated. */
const NOT_GATED: ApprovalView = {
  state: () => 'approved',
  approvedForSession: () => false,
};

export class RestartAll {
  readonly registry = new Registry();
  readonly #leases = new Map<string, Lease>();

  constructor(
    private readonly pool: Pool,
    private readonly sessionId: string,
    private readonly workspace: string,
  ) {}

  /** Tear everything down, then rediscover everything the desired state has. */
  async restart(state: DesiredState): Promise<void> {
    const desired = state.kinds[MCP_SERVER];
    for (const [name, lease] of this.#leases) {
      this.registry.delete(name);
      this.pool.release(lease.key, this.sessionId, { reason: 'config' });
    }
    this.#leases.clear();
    await Promise.all(
      Object.values(desired.servers).map(async (server) => {
        const admission = admit(server, {
          trusted: desired.trusted,
          gating: desired.gating,
          approvals: NOT_GATED,
          sessionId: this.sessionId,
          workspace: this.workspace,
          env: daemonEnvironment(process.env),
        });
        if (!admission.admitted || !admission.runnable) return;
        const lease = await this.pool.acquire(admission.ticket, {
          sessionId: this.sessionId,
          onLost: () => undefined,
        });
        this.#leases.set(server.name, lease);
        this.registry.set(server.name, {
          key: lease.key,
          connectionId: lease.connectionId,
          tools: lease.tools(),
          prompts: lease.prompts(),
        });
      }),
    );
  }

  close(): void {
    for (const lease of this.#leases.values())
      this.pool.release(lease.key, this.sessionId, { reason: 'sessionClosed' });
    this.#leases.clear();
  }
}
