/** The OAuth grant store of the daemon (one file per machine user). */
export {
  defaultTokensPath,
  FileGrantStore,
  readTokensFile,
  TokenFileError,
  TOKENS_DIR_MODE,
  TOKENS_FILE_MODE,
} from './store.js';
