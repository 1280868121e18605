/**
 * OAuth for remote servers, in one place (DESIGN §5 "One login per server per machine"):
 * discovery, registration, login (PKCE, the loopback redirect), refresh (single-flight, backed
 * off), and the grant store. The pool sees only its AuthPort; the daemon builds the manager.
 */
export { createOAuthManager, type OAuthManager, type OAuthManagerOptions } from './manager.js';
export { LOGIN_TTL_MS, type LoginStart } from './login.js';
export { LoginRequiredError, LoginStateError, OAuthEndpointError } from './errors.js';
export type { OAuthGrant, OAuthGrantStore } from './grant.js';
export {
  defaultTokensPath,
  FileGrantStore,
  readTokensFile,
  TokenFileError,
  TOKENS_DIR_MODE,
  TOKENS_FILE_MODE,
} from './token-store.js';
export {
  DEFAULT_REDIRECT_PATH,
  listenForRedirect,
  RedirectError,
  type RedirectListener,
} from './redirect-listener.js';
