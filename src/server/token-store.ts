// The seam between authentication and storage for API-created tokens: the TokenPort of store/.
export type { TokenPort as TokenStore } from '../store/index.js';
