/**
 * The requests a gateway sent the agent (sampling, elicitation, roots/list, ping), by the id
 * the agent sees, for `mcpctl serve`'s session keeper (keeper.ts).
 *
 * Guarantees:
 * - Requests the gateway sent the agent belong to that gateway: once it is gone, the agent's
 *   answers to them are dropped, never handed to the next gateway, which never asked. From the
 *   second gateway on, their ids are renamed (`"mcpctl-<n>-<k>"`) on the way to the agent and
 *   back, so no id of a gone gateway can be taken for one of the new gateway's.
 * - At most MAX_GATEWAY_ASKS are remembered (the oldest forgotten: its answer is then the
 *   gateway's business, passed on as it is).
 */

/** Ids of the gateways' requests to the agent remembered, at most (oldest forgotten). */
const MAX_GATEWAY_ASKS = 10_000;

/** A request a gateway sent the agent, by the id the agent sees. */
export interface GatewayAsk {
  readonly gen: number;
  /** The gateway's own id (the same text in the first generation). */
  readonly id: string;
}

export class GatewayAsks {
  readonly #asks = new Map<string, GatewayAsk>();
  #count = 0;

  /** The gateway of generation `gen` asks the agent, under its id `id`: the id the agent sees. */
  add(gen: number, id: string): string {
    // The first gateway's ids pass as they are; a later one's could be a gone gateway's.
    const visible = gen === 1 ? id : JSON.stringify(`mcpctl-${gen}-${(this.#count += 1)}`);
    this.#asks.set(visible, { gen, id });
    if (this.#asks.size > MAX_GATEWAY_ASKS) {
      const oldest = this.#asks.keys().next();
      if (!oldest.done) this.#asks.delete(oldest.value);
    }
    return visible;
  }

  /** The agent answered `visible`: whose request it was, if a gateway's (forgotten now). */
  answered(visible: string): GatewayAsk | undefined {
    const ask = this.#asks.get(visible);
    if (ask) this.#asks.delete(visible);
    return ask;
  }

  /** The gateway of `gen` gave up on its request `id`: the id the agent knows it by, if any. */
  cancelled(gen: number, id: string | undefined): string | undefined {
    for (const [visible, ask] of this.#asks)
      if (ask.gen === gen && ask.id === id) {
        this.#asks.delete(visible);
        return visible;
      }
    return undefined;
  }
}
