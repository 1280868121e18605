/**
 * What a language server sends its client, wired to who answers or keeps it: its requests to
 * us (server-requests.ts), the work-done progress it creates and reports (server-progress.ts),
 * the diagnostics it publishes (diagnostics.ts), its log and show messages (the connection's
 * notes).
 *
 * Guarantees:
 * - Every request server-requests.ts answers is routed to it (configuration, registrations,
 *   work-done progress creation, show-message requests, applyEdit, workspace folders); any
 *   other gets the JSON-RPC library's MethodNotFound at once.
 * - A progress token's `$/progress` is followed only when ServerProgress took its creation
 *   (it follows a bounded number), and no longer after its `end`.
 * - Publishes go to the connection's diagnostics store, whose bounds keep them; log and show
 *   messages become notes (the connection keeps a bounded number).
 */
import {
  ApplyWorkspaceEditRequest,
  ConfigurationRequest,
  LogMessageNotification,
  PublishDiagnosticsNotification,
  RegistrationRequest,
  ShowMessageNotification,
  ShowMessageRequest,
  UnregistrationRequest,
  WorkDoneProgress,
  WorkDoneProgressCreateRequest,
  WorkspaceFoldersRequest,
  type ProtocolConnection,
} from 'vscode-languageserver-protocol/node';
import type { DiagnosticsStore } from './diagnostics.js';
import type { ServerProgress } from './server-progress.js';
import type { ServerRequests } from './server-requests.js';

/** Who answers or keeps what one server sends: its connection's parts. */
export interface ServerHandlers {
  readonly requests: ServerRequests;
  readonly progress: ServerProgress;
  readonly store: DiagnosticsStore;
  readonly note: (message: string) => void;
}

/** Routes the server's requests and notifications on `rpc` (before it listens). */
export function handleServer(rpc: ProtocolConnection, handlers: ServerHandlers): void {
  const { requests, progress, store, note } = handlers;
  rpc.onRequest(ConfigurationRequest.type, (params) => requests.configuration(params.items));
  rpc.onRequest(RegistrationRequest.type, (params) => requests.register(params.registrations));
  rpc.onRequest(UnregistrationRequest.type, (params) =>
    requests.unregister(params.unregisterations.map((u) => u.id)),
  );
  rpc.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
    if (!progress.created(token)) return;
    const followed = rpc.onProgress(WorkDoneProgress.type, token, (value) => {
      progress.update(token, value);
      if (value.kind === 'end') followed.dispose();
    });
  });
  rpc.onRequest(ShowMessageRequest.type, (params) => requests.showMessageRequest(params.message));
  rpc.onRequest(ApplyWorkspaceEditRequest.type, (params) => requests.applyEdit(params.label));
  rpc.onRequest(WorkspaceFoldersRequest.type, () => requests.workspaceFolders());
  rpc.onNotification(PublishDiagnosticsNotification.type, (params) => store.publish(params));
  rpc.onNotification(LogMessageNotification.type, (params) => note(params.message));
  rpc.onNotification(ShowMessageNotification.type, (params) => note(params.message));
}
