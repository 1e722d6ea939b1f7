// The seam between authentication and storage for API-created tokens: the TokenPort of store/.
export type { StoredToken, TokenPort as TokenStore } from '../store/index.js';
