/** Where reconcilers report what happened; the controller's event recorder implements it. */

export type EventType = 'Normal' | 'Warning';

export type EventReason =
  | 'Connected'
  | 'Stopped'
  | 'Disconnected'
  | 'Restarted'
  | 'ConnectFailed'
  | 'BackOff'
  | 'PendingApproval'
  | 'Approved'
  | 'Rejected'
  | 'Removed'
  | 'ConfigInvalid'
  | 'ConfigValid'
  | 'RolloutFailed'
  | 'NotAdmitted'
  /** A malformed entry of the approvals file (ignored, kept), or one a decision kept aside. */
  | 'InvalidApproval'
  | 'ApprovalsValid'
  | 'MissingEnv'
  /** Admitted, but what its entry names cannot be used (a workspace folder outside the workspace). */
  | 'InvalidConfig'
  /** Past its restart policy (`restartOnCrash`, `maxRestarts`): not restarted until an edit or a reload. */
  | 'GaveUp'
  | 'Flooding'
  /** A server sent a message over the message limit (dropped; its request failed). */
  | 'MessageTooLarge'
  | 'Unauthorized'
  | 'LoggedIn'
  | 'LoggedOut'
  /** Two servers of a session list one resource URI; the higher-precedence scope serves it. */
  | 'DuplicateResource'
  /** Some of a server's tools or prompts differ from their pins: held for the user (pins.ts). */
  | 'Pinned'
  | 'ToolsChanged'
  | 'ToolsRejected'
  | 'PinsUnreadable'
  /** The user accepted or rejected held definitions. */
  | 'ToolsAccepted';

export interface EventSink {
  /** `object` is `server/NAME`, `languageserver/NAME` or `session/NAME`. */
  record(type: EventType, reason: EventReason, object: string, message: string): void;
}
