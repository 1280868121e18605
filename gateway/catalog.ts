/**
 * The session's tools and prompts under the names the agent sees (`server__tool`,
 * tool-names.ts), and the way back from such a name to its server (routes.ts). Shared by the
 * tools, prompts and completion capabilities.
 *
 * Guarantees:
 * - Tools and prompts are named from one listing of the session's Ready servers: `refresh`
 *   replaces both route tables at once, so a name that left either listing is known as gone
 *   (with its former server, for the `why` answer) as soon as either is listed again.
 * - Everything about a tool or prompt but its name is the server's, unchanged.
 * - `routeOf` lists again once when a name is not (yet) known, never more.
 */
import type { Prompt, Tool } from '@modelcontextprotocol/sdk/types.js';
import { RouteTable, type Route } from './routes.js';
import type { ServerTools } from './session-port.js';

export class Catalog {
  readonly tools: RouteTable;
  readonly prompts: RouteTable;

  constructor(
    private readonly listing: () => Promise<ServerTools[]>,
    log: (message: string) => void,
  ) {
    this.tools = new RouteTable((m) => log(`tool ${m}`));
    this.prompts = new RouteTable((m) => log(`prompt ${m}`));
  }

  /** Lists the servers again; their tools and prompts under visible names. */
  async refresh(): Promise<{ tools: Tool[]; prompts: Prompt[] }> {
    const servers = await this.listing();
    const toolNames = this.tools.replace(
      servers.map((e) => ({ server: e.server, names: e.tools.map((t) => t.name) })),
    );
    const promptNames = this.prompts.replace(
      servers.map((e) => ({ server: e.server, names: e.prompts.map((p) => p.name) })),
    );
    const tools: Tool[] = [];
    const prompts: Prompt[] = [];
    servers.forEach((entry, i) => {
      entry.tools.forEach((tool, j) => {
        const name = toolNames[i][j];
        if (name !== undefined) tools.push({ ...tool, name });
      });
      entry.prompts.forEach((prompt, j) => {
        const name = promptNames[i][j];
        if (name !== undefined) prompts.push({ ...prompt, name });
      });
    });
    return { tools, prompts };
  }

  /** A visible name's route in `table` (`tools` or `prompts`), listing again once if unknown. */
  async routeOf(table: RouteTable, name: string): Promise<Route | undefined> {
    const route = table.get(name);
    if (route) return route;
    await this.refresh();
    return table.get(name);
  }
}
