// undici's Pool behind a module of our own: imported on first use, it becomes an ES module chunk of the bundle whose
// named export resolves (a dynamic import of the CommonJS package itself would give the bundle only its default).
export { Pool } from 'undici';
